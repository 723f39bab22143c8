// SPDX-License-Identifier: GPL-2.0
/*
 * killshim: an LD_PRELOAD library that kills the process with SIGKILL just
 * before its Nth file-writing library call, to test what a crash leaves on
 * disk.  Built by selftests/test_kill.py.
 *
 * Environment:
 *   KILLSHIM_AT=N      raise(SIGKILL) before the Nth counted call (1-based);
 *                      unset or 0: never
 *   KILLSHIM_LOG=FILE  append one line per counted call: "N op path"
 *   KILLSHIM_DUMP=FILE in a process named "conf", write its working folder,
 *                      arguments and environment (NUL-separated) to FILE
 *   KILLSHIM_FORK=FILE with lines "N FOLDER": at the first counted call,
 *                      before anything is written, fork one child per
 *                      line (KILLSHIM_JOBS at a time, 2 by default), which
 *                      goes on in FOLDER and is killed before call N (0:
 *                      never); then write "N STATUS" lines (the wait status)
 *                      to FILE.out and exit.  So conf parses the Kconfig
 *                      files once for many kill runs.
 *   KILLSHIM_SHELL=FILE  cache of the $(shell,...) commands of the Kconfig
 *                      files (popen): if FILE does not exist, the commands
 *                      run and their output is recorded in it; otherwise
 *                      their output is replayed from it, which makes a run
 *                      of conf on the real tree about ten times faster.
 *
 * Counted calls: opening a file for writing (fopen, open with O_WRONLY or
 * O_RDWR), writing to such a stream (fputs, fputc, putc, fwrite, fprintf,
 * vfprintf), fflush, fclose, close of a written descriptor, rename, unlink,
 * link, mkdir.  Streams opened for writing get a 64-byte buffer, so that a
 * kill between two calls leaves what was written so far on disk, as a
 * crash in the middle of a big file would.  stdout and stderr are not
 * counted.  Only processes named "conf" are affected.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_STREAMS 64
#define MAX_FDS 4096

static long counter;
static long kill_at;
static int active;
static FILE *log_file;
static FILE *streams[MAX_STREAMS];
static char stream_bufs[MAX_STREAMS][64];
static char written_fds[MAX_FDS];

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

static const char *fork_file;

static void fork_server(void)
{
	char line[8192], out_name[4096], dir[8192];
	long n, ns[2048];
	pid_t pids[2048];
	int jobs = 2, running = 0, count = 0, i, status, null;
	FILE *in, *out;
	pid_t pid;
	const char *s;

	s = getenv("KILLSHIM_JOBS");
	if (s && atoi(s) > 0)
		jobs = atoi(s);
	active = 0;
	in = fopen(fork_file, "r");
	snprintf(out_name, sizeof(out_name), "%s.out", fork_file);
	out = fopen(out_name, "w");
	if (!in || !out)
		_exit(120);
	fflush(stdout);
	fflush(stderr);
	while (fgets(line, sizeof(line), in) && count < 2048) {
		if (sscanf(line, "%ld %8191[^\n]", &n, dir) != 2)
			continue;
		while (running >= jobs) {
			pid = wait(&status);
			for (i = 0; i < count; i++)
				if (pids[i] == pid)
					fprintf(out, "%ld %d\n", ns[i], status);
			running--;
		}
		pid = fork();
		if (pid < 0)
			_exit(121);
		if (!pid) {
			fclose(in);
			fclose(out);
			if (chdir(dir))
				_exit(122);
			null = open("/dev/null", O_WRONLY);
			dup2(null, 1);
			dup2(null, 2);
			kill_at = n;
			log_file = NULL;
			active = 1;
			return;
		}
		pids[count] = pid;
		ns[count++] = n;
		running++;
	}
	while (running > 0) {
		pid = wait(&status);
		for (i = 0; i < count; i++)
			if (pids[i] == pid)
				fprintf(out, "%ld %d\n", ns[i], status);
		running--;
	}
	fclose(out);
	_exit(0);
}

static void event(const char *op, const char *path)
{
	if (!active)
		return;
	counter++;
	if (counter == 1 && fork_file)
		fork_server();
	if (log_file) {
		fprintf(log_file, "%ld %s %s\n", counter, op, path ? path : "-");
		fflush(log_file);
	}
	if (kill_at && counter == kill_at)
		raise(SIGKILL);
}

static int tracked(FILE *f)
{
	int i;

	if (!f || f == stdout || f == stderr)
		return 0;
	for (i = 0; i < MAX_STREAMS; i++)
		if (streams[i] == f)
			return 1;
	return 0;
}

static void dump(const char *file)
{
	char buf[65536];
	ssize_t n;
	int in, out;
	const char *paths[] = { "/proc/self/cmdline", "/proc/self/environ" };
	int i;

	out = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return;
	if (getcwd(buf, sizeof(buf)))
		(void)!write(out, buf, strlen(buf) + 1);
	(void)!write(out, "\n--args--\n", 10);
	for (i = 0; i < 2; i++) {
		in = open(paths[i], O_RDONLY);
		if (in < 0)
			continue;
		while ((n = read(in, buf, sizeof(buf))) > 0)
			(void)!write(out, buf, n);
		close(in);
		if (!i)
			(void)!write(out, "\n--env--\n", 9);
	}
	close(out);
}

/* the $(shell,...) cache: "command\0output\0" records */
static char *shell_cache;
static size_t shell_cache_len;
static int shell_record_fd = -1;
static FILE *shell_streams[MAX_STREAMS];

static void shell_init(const char *file)
{
	struct stat st;
	int fd;

	fd = open(file, O_RDONLY);
	if (fd < 0) {
		shell_record_fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0644);
		return;
	}
	if (!fstat(fd, &st) && st.st_size > 0) {
		shell_cache = malloc(st.st_size);
		if (shell_cache &&
		    read(fd, shell_cache, st.st_size) == st.st_size)
			shell_cache_len = st.st_size;
	}
	close(fd);
}

static const char *shell_lookup(const char *cmd)
{
	const char *p = shell_cache, *end = shell_cache + shell_cache_len;
	const char *out;

	while (p < end) {
		out = p + strlen(p) + 1;
		if (out >= end)
			break;
		if (!strcmp(p, cmd))
			return out;
		p = out + strlen(out) + 1;
	}
	return NULL;
}

/* A stream that reads @len bytes of @data, through a pipe */
static FILE *shell_stream(const char *data, size_t len)
{
	int fds[2], i;
	FILE *f;

	if (len > 60000 || pipe(fds))
		return NULL;
	if (write(fds[1], data, len) != (ssize_t)len) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	for (i = 0; f && i < MAX_STREAMS; i++) {
		if (!shell_streams[i]) {
			shell_streams[i] = f;
			break;
		}
	}
	return f;
}

FILE *popen(const char *cmd, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	static int (*real_pclose)(FILE *);
	char buf[60000];
	const char *out;
	size_t n = 0, r;
	FILE *f;

	if (!real) {
		real = next("popen");
		real_pclose = next("pclose");
	}
	if (!active || strcmp(mode, "r"))
		return real(cmd, mode);
	out = shell_lookup(cmd);
	if (out)
		return shell_stream(out, strlen(out));
	f = real(cmd, mode);
	if (!f || shell_record_fd < 0)
		return f;
	while (n < sizeof(buf) - 1 &&
	       (r = fread(buf + n, 1, sizeof(buf) - 1 - n, f)) > 0)
		n += r;
	real_pclose(f);
	buf[n] = '\0';
	n = strlen(buf);
	if (write(shell_record_fd, cmd, strlen(cmd) + 1) < 0 ||
	    write(shell_record_fd, buf, n + 1) < 0)
		return NULL;
	return shell_stream(buf, n);
}

int pclose(FILE *f)
{
	static int (*real)(FILE *);
	int i;

	if (!real)
		real = next("pclose");
	for (i = 0; f && i < MAX_STREAMS; i++) {
		if (shell_streams[i] == f) {
			shell_streams[i] = NULL;
			fclose(f);
			return 0;
		}
	}
	return real(f);
}

__attribute__((constructor)) static void killshim_init(void)
{
	char exe[4096];
	const char *s, *base;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	if (strcmp(base, "conf"))
		return;

	s = getenv("KILLSHIM_DUMP");
	if (s && *s)
		dump(s);
	s = getenv("KILLSHIM_SHELL");
	if (s && *s)
		shell_init(s);
	s = getenv("KILLSHIM_AT");
	kill_at = s ? atol(s) : 0;
	s = getenv("KILLSHIM_FORK");
	if (s && *s)
		fork_file = s;
	s = getenv("KILLSHIM_LOG");
	if (s && *s) {
		FILE *(*real_fopen)(const char *, const char *) = next("fopen");

		log_file = real_fopen(s, "a");
	}
	active = 1;
}

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	FILE *f;
	int i, w = strpbrk(mode, "wa+") != NULL;

	if (!real)
		real = next("fopen");
	if (w)
		event("fopen", path);
	f = real(path, mode);
	if (f && w && active) {
		for (i = 0; i < MAX_STREAMS; i++) {
			if (!streams[i]) {
				streams[i] = f;
				setvbuf(f, stream_bufs[i], _IOFBF,
					sizeof(stream_bufs[i]));
				break;
			}
		}
	}
	return f;
}

FILE *fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	mode_t mode = 0;
	va_list ap;
	int fd;

	if (!real)
		real = next("open");
	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (flags & (O_WRONLY | O_RDWR))
		event("open", path);
	fd = real(path, flags, mode);
	if (fd >= 0 && fd < MAX_FDS)
		written_fds[fd] = !!(flags & (O_WRONLY | O_RDWR));
	return fd;
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return open(path, flags, mode);
}

int close(int fd)
{
	static int (*real)(int);

	if (!real)
		real = next("close");
	if (fd >= 0 && fd < MAX_FDS && written_fds[fd]) {
		written_fds[fd] = 0;
		event("close", "-");
	}
	return real(fd);
}

int fclose(FILE *f)
{
	static int (*real)(FILE *);
	int i;

	if (!real)
		real = next("fclose");
	if (tracked(f)) {
		event("fclose", "-");
		for (i = 0; i < MAX_STREAMS; i++)
			if (streams[i] == f)
				streams[i] = NULL;
	}
	return real(f);
}

int fflush(FILE *f)
{
	static int (*real)(FILE *);

	if (!real)
		real = next("fflush");
	if (tracked(f))
		event("fflush", "-");
	return real(f);
}

int fputs(const char *s, FILE *f)
{
	static int (*real)(const char *, FILE *);

	if (!real)
		real = next("fputs");
	if (tracked(f))
		event("fputs", "-");
	return real(s, f);
}

int fputc(int c, FILE *f)
{
	static int (*real)(int, FILE *);

	if (!real)
		real = next("fputc");
	if (tracked(f))
		event("fputc", "-");
	return real(c, f);
}

int putc(int c, FILE *f)
{
	static int (*real)(int, FILE *);

	if (!real)
		real = next("putc");
	if (tracked(f))
		event("putc", "-");
	return real(c, f);
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
	static size_t (*real)(const void *, size_t, size_t, FILE *);

	if (!real)
		real = next("fwrite");
	if (tracked(f))
		event("fwrite", "-");
	return real(p, size, n, f);
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
	static int (*real)(FILE *, const char *, va_list);

	if (!real)
		real = next("vfprintf");
	if (tracked(f))
		event("fprintf", "-");
	return real(f, fmt, ap);
}

int fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfprintf(f, fmt, ap);
	va_end(ap);
	return ret;
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
	va_list ap;
	int ret;

	(void)flag;
	va_start(ap, fmt);
	ret = vfprintf(f, fmt, ap);
	va_end(ap);
	return ret;
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);

	if (!real)
		real = next("rename");
	event("rename", to);
	return real(from, to);
}

int unlink(const char *path)
{
	static int (*real)(const char *);

	if (!real)
		real = next("unlink");
	event("unlink", path);
	return real(path);
}

int link(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);

	if (!real)
		real = next("link");
	event("link", to);
	return real(from, to);
}

int mkdir(const char *path, mode_t mode)
{
	static int (*real)(const char *, mode_t);

	if (!real)
		real = next("mkdir");
	event("mkdir", path);
	return real(path, mode);
}
