// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the configuration side of kconfig: the reading of
 * .config and KCONFIG_ALLCONFIG input, the calculation, the unmet-select
 * report, the dropped-request report and the JSON report of the patched
 * tree (KCONFIG_UNMET_REPORT), then the writing of .config.
 *
 * The Kconfig tree (tools/fuzz/Kconfig, or $FUZZ_KCONFIG) is parsed once.
 * Each input is a configuration fragment; a first line "#!MODE" picks what
 * conf does with it (lines that start with '#' but not "# " are comments
 * to conf_read_simple(), so the line is part of the input as well):
 *
 *   #!old      conf_read() as .config, then olddefconfig (the default)
 *   #!allno    conf_read_simple() as KCONFIG_ALLCONFIG, then allnoconfig
 *   #!allyes   ... allyesconfig,  #!allmod ... allmodconfig,
 *   #!alldef   ... alldefconfig,  #!rand[SEED] ... randconfig
 *
 * The report must be valid JSON in UTF-8: the harness checks it and aborts
 * otherwise (FUZZ_NO_JSON_CHECK=1 turns the check off).  conf.c is
 * compiled in this file with its main() renamed, for its static helpers.
 */

#define main kconfig_conf_main
#include "conf.c"
#undef main

#include <stdint.h>
#include <sys/mman.h>

void fuzz_reset_unmet_deps(void);	/* symbol-fuzz.c */

static char in_path[64], report_path[PATH_MAX], config_path[PATH_MAX];
static int in_fd = -1;
static bool check_json = true;

/* --- a small JSON checker: RFC 8259, strings must be valid UTF-8 --- */

struct jp {
	const unsigned char *p, *end;
	int depth;
};

static void jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool jp_lit(struct jp *j, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, s, n))
		return false;
	j->p += n;
	return true;
}

static bool jp_utf8(struct jp *j)
{
	unsigned char c = *j->p;
	int n, i;
	uint32_t cp;

	if (c < 0x80) {
		j->p++;
		return true;
	} else if ((c & 0xe0) == 0xc0) {
		n = 1; cp = c & 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		n = 2; cp = c & 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		n = 3; cp = c & 0x07;
	} else {
		return false;
	}
	if (j->end - j->p <= n)
		return false;
	for (i = 1; i <= n; i++) {
		if ((j->p[i] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (j->p[i] & 0x3f);
	}
	if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
	    (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return false;
	j->p += n + 1;
	return true;
}

static bool jp_string(struct jp *j)
{
	if (j->p >= j->end || *j->p != '"')
		return false;
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p < 0x20)
			return false;
		if (*j->p == '\\') {
			j->p++;
			if (j->p >= j->end)
				return false;
			if (*j->p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (j->p + i >= j->end || !isxdigit(j->p[i]))
						return false;
				j->p += 5;
			} else if (strchr("\"\\/bfnrt", *j->p) && *j->p) {
				j->p++;
			} else {
				return false;
			}
			continue;
		}
		if (!jp_utf8(j))
			return false;
	}
	if (j->p >= j->end)
		return false;
	j->p++;
	return true;
}

static bool jp_value(struct jp *j);

static bool jp_number(struct jp *j)
{
	const unsigned char *s = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || !isdigit(*j->p))
		return false;
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && isdigit(*j->p))
			j->p++;
	return j->p > s;
}

static bool jp_container(struct jp *j, char close, bool object)
{
	j->p++;
	if (++j->depth > 64)
		return false;
	jp_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		jp_ws(j);
		if (object) {
			if (!jp_string(j))
				return false;
			jp_ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return false;
		}
		if (!jp_value(j))
			return false;
		jp_ws(j);
		if (j->p >= j->end)
			return false;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != close)
			return false;
		j->depth--;
		return true;
	}
}

static bool jp_value(struct jp *j)
{
	jp_ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
		return jp_container(j, '}', true);
	case '[':
		return jp_container(j, ']', false);
	case '"':
		return jp_string(j);
	case 't':
		return jp_lit(j, "true");
	case 'f':
		return jp_lit(j, "false");
	case 'n':
		return jp_lit(j, "null");
	default:
		return jp_number(j);
	}
}

static bool json_valid(const char *buf, size_t len)
{
	struct jp j = { (const unsigned char *)buf,
			(const unsigned char *)buf + len, 0 };

	if (!jp_value(&j))
		return false;
	jp_ws(&j);
	return j.p == j.end;
}

static void check_report(void)
{
	FILE *f = fopen(report_path, "r");
	char *buf;
	long len;

	if (!f) {
		fprintf(stderr, "fuzz-kconfig: no report %s\n", report_path);
		abort();
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = xmalloc(len + 1);
	if (fread(buf, 1, len, f) != (size_t)len)
		abort();
	fclose(f);
	if (!json_valid(buf, len)) {
		fprintf(stderr, "fuzz-kconfig: the report is not valid JSON (UTF-8):\n%.*s\n",
			(int)len, buf);
		abort();
	}
	free(buf);
}

/* --- the harness --- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *kconfig = getenv("FUZZ_KCONFIG");
	const char *tmp = getenv("TMPDIR");

	if (!kconfig)
		kconfig = FUZZ_KCONFIG_DEFAULT;
	if (getenv("FUZZ_NO_JSON_CHECK"))
		check_json = false;
	if (!tmp || !*tmp)
		tmp = "/tmp";

	/* the new code paths: warnings about dropped requests */
	setenv("KCONFIG_WARN_DROPPED", "1", 1);
	unsetenv("KCONFIG_WERROR");

	in_fd = memfd_create("fuzz-config", 0);
	if (in_fd < 0) {
		perror("memfd_create");
		exit(2);
	}
	snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", in_fd);
	snprintf(report_path, sizeof(report_path), "%s/fuzz-kconfig-%d.json",
		 tmp, (int)getpid());
	snprintf(config_path, sizeof(config_path), "%s/fuzz-kconfig-%d.config",
		 tmp, (int)getpid());

	conf_set_message_callback(NULL);
	conf_parse(kconfig);
	return 0;
}

static enum conf_def_mode input_mode_of(const uint8_t *data, size_t size,
					 bool *all, unsigned int *seed)
{
	static const struct { const char *name; enum conf_def_mode mode; } m[] = {
		{ "#!allno", def_no }, { "#!allyes", def_yes },
		{ "#!allmod", def_mod }, { "#!alldef", def_default },
		{ "#!rand", def_random },
	};
	size_t i, n;

	*all = false;
	*seed = 0;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		n = strlen(m[i].name);
		if (size >= n && !memcmp(data, m[i].name, n)) {
			*all = true;
			if (m[i].mode == def_random)
				while (n < size && isdigit(data[n]))
					*seed = *seed * 10 + data[n++] - '0';
			return m[i].mode;
		}
	}
	return def_default;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum conf_def_mode mode;
	unsigned int seed;
	bool all;

	if (size > 65536)
		return -1;
	if (ftruncate(in_fd, 0) || pwrite(in_fd, data, size, 0) != (ssize_t)size)
		abort();
	mode = input_mode_of(data, size, &all, &seed);

	fuzz_reset_unmet_deps();
	if (all) {
		/* allnoconfig & co with KCONFIG_ALLCONFIG=input */
		conf_read_simple(in_path, S_DEF_USER);
		if (mode == def_random) {
			srand(seed);
			conf_set_all_new_symbols(def_random);
		} else {
			conf_set_all_new_symbols(mode);
		}
	} else {
		/* olddefconfig with the input as .config */
		conf_read(in_path);
		conf_set_all_new_symbols(def_default);
	}

	sym_report_unmet_deps();
	conf_report_dropped();
	if (conf_write_report(report_path))
		abort();
	if (check_json)
		check_report();
	sym_dep_errors();
	conf_dropped_errors();
	conf_write(config_path);
	conf_write_defconfig(config_path);
	unlink(report_path);
	unlink(config_path);
	return 0;
}
