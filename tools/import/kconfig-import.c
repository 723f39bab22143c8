// SPDX-License-Identifier: GPL-2.0
/*
 * kconfig-import: what a Kconfig board fragment must say so that
 * "make allnoconfig" on it writes a given .config.
 *
 *   kconfig-import Kconfig CONFIG...
 *
 * Built against the kconfig sources of the tree (tools/audit/build
 * --tool import), it runs where conf runs (srctree, ARCH, SRCARCH, CC...
 * in the environment).  It parses the Kconfig files once, then reads each
 * CONFIG as conf reads a .config and prints, for each, a line "config
 * PATH" and then what allnoconfig does not give by itself:
 *
 *   select SYM y|m   a bool or tristate with a visible prompt, at y or m,
 *                    above what the tree's own selects give it (under
 *                    allnoconfig a visible prompt is n unless selected)
 *   value SYM TYPE VALUE
 *                    an int, hex or string with a visible prompt whose
 *                    value is not the one its defaults give
 *   choice SYM       a choice member at y that is not its choice's default
 *                    (a select cannot set it)
 *   tristate-choice SYM
 *                    a member of a choice in m mode: not importable
 *
 * The values are those of sym_calc_value(), so they are kconfig's own.
 * Exit status: 0, or 2 on a usage or I/O error.
 */

#define main kconfig_conf_main
#include "conf.c"
#undef main

#ifdef KCONFIG_CHOICE_MENUS
#define for_each_symbol(i, sym)	for_all_symbols(sym)
#else
#define for_each_symbol(i, sym)	for_all_symbols(i, sym)
#endif

static bool has_prompt(struct symbol *sym)
{
	struct property *prop;

	for_all_prompts(sym, prop)
		return true;
	return false;
}

/* The value that @sym's first default whose condition holds gives it */
static const char *default_string(struct symbol *sym)
{
	struct property *prop;

	for_all_defaults(sym, prop) {
		if (expr_calc_value(prop->visible.expr) == no)
			continue;
		sym_calc_value(prop->expr->left.sym);
		return sym_get_string_value(prop->expr->left.sym);
	}
	return "";
}

static void print_value(struct symbol *sym)
{
	const char *val = sym_get_string_value(sym);

	if (!strcmp(val, default_string(sym)))
		return;
	printf("value %s %s ", sym->name, sym_type_name(sym->type));
	if (sym->type == S_STRING) {
		putchar('"');
		for (; *val; val++) {
			if (*val == '"' || *val == '\\')
				putchar('\\');
			putchar(*val);
		}
		putchar('"');
	} else {
		fputs(val, stdout);
	}
	putchar('\n');
}

static void print_symbol(struct symbol *sym)
{
	tristate val;

	if (!sym->name || sym_is_choice(sym) || !has_prompt(sym))
		return;
	sym_calc_value(sym);
	if (sym->visible == no)
		return;
	switch (sym->type) {
	case S_BOOLEAN:
	case S_TRISTATE:
		val = sym_get_tristate_value(sym);
		if (sym_is_choice_value(sym)) {
			struct symbol *cs = prop_get_symbol(sym_get_choice_prop(sym));

			if (val == mod)
				printf("tristate-choice %s\n", sym->name);
			else if (val == yes && sym_get_choice_value(cs) == sym &&
				 sym_choice_default(cs) != sym)
				printf("choice %s\n", sym->name);
			return;
		}
		if (val > sym->rev_dep.tri)
			printf("select %s %c\n", sym->name, val == yes ? 'y' : 'm');
		break;
	case S_INT:
	case S_HEX:
	case S_STRING:
		print_value(sym);
		break;
	default:
		break;
	}
}

int main(int ac, char **av)
{
	struct symbol *sym;
	int i, n;

	if (ac < 3) {
		fprintf(stderr, "usage: kconfig-import Kconfig CONFIG...\n");
		return 2;
	}
	conf_parse(av[1]);
	for (n = 2; n < ac; n++) {
		if (conf_read(av[n])) {
			fprintf(stderr, "kconfig-import: %s: cannot read\n", av[n]);
			return 2;
		}
		printf("config %s\n", av[n]);
		for_each_symbol(i, sym)
			print_symbol(sym);
	}
	return 0;
}
