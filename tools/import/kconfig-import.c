// SPDX-License-Identifier: GPL-2.0
/*
 * kconfig-import: what a Kconfig board fragment must say so that
 * "make allnoconfig" (or "make alldefconfig") on it writes a given
 * .config.
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
 *   set SYM y|m      the same, for a symbol whose direct dependency is
 *                    below that value: a select would be unmet, so the
 *                    value must be set as the user's (KCONFIG_ALLCONFIG)
 *   value SYM TYPE VALUE
 *                    an int, hex or string with a visible prompt whose
 *                    value is not the one its defaults give
 *   choice SYM       a choice member at y that is not its choice's default
 *                    (a select cannot set it)
 *   tristate-choice SYM
 *                    a member of a choice in m mode: not importable
 *   below SYM n|m    a bool or tristate with a visible prompt below what
 *                    its default gives it: "make alldefconfig" would
 *                    raise it, so a board on that base says it in CONFIG
 *   given SYM        a "select" symbol whose default gives it its value:
 *                    a board on the alldefconfig base needs no select
 *   default SYM T R D
 *                    a bool or tristate with a prompt and a default that a
 *                    fragment can restate as "select SYM if COND", with its
 *                    value T, what the tree's selects give it (R) and what
 *                    its default gives it (D), each n, m or y; printed when
 *                    T or D is not n
 *
 * Before the first "config" line it prints, for each such symbol, "cond
 * SYM COND": the condition of its one default (its "if" and the
 * dependencies of its menu) and'ed with the default's value, in Kconfig's
 * syntax, or'ed with what implies it within its dependencies.  A symbol
 * qualifies when it is not a choice member, it has one default, and that
 * condition names only defined
 * symbols (one that no Kconfig file defines is written n), y, m and n,
 * with no comparison but of bool and tristate symbols, and only a bool
 * is implied (what implies a tristate can make its m y).
 *
 * The values are those of sym_calc_value(), so they are kconfig's own.
 * Exit status: 0, or 2 on a usage or I/O error.
 */

#define main kconfig_conf_main
#include "conf.c"
#undef main

/* 6.12 and later share expressions and never free them (tools/audit/build
 * defines KCONFIG_SHARED_EXPR when expr.h has no expr_copy()) */
#ifdef KCONFIG_SHARED_EXPR
#define expr_copy(e)	(e)
#define expr_free(e)	do { } while (0)
#endif

#ifdef KCONFIG_CHOICE_MENUS
#define for_each_symbol(i, sym)	for_all_symbols(sym)
#else
#define for_each_symbol(i, sym)	for_all_symbols(i, sym)
#endif

/* The default member of the choice of member @sym (6.11 made choices
 * menus: KCONFIG_CHOICE_MENUS, as tools/audit/build defines it) */
static struct symbol *choice_default_of(struct symbol *sym)
{
#ifdef KCONFIG_CHOICE_MENUS
	return sym_choice_default(sym_get_choice_menu(sym));
#else
	return sym_choice_default(prop_get_symbol(sym_get_choice_prop(sym)));
#endif
}

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

static const char tri_char[] = { 'n', 'm', 'y' };

/* A symbol of an expression that a fragment can name: a bool or tristate
 * of the tree, or y, m, n; one that no Kconfig file defines is n */
static bool sym_plain(struct symbol *sym, bool undefined_ok)
{
	if (sym == &symbol_yes || sym == &symbol_mod || sym == &symbol_no)
		return true;
	if (!sym->name || (sym->flags & SYMBOL_CONST) || sym_is_choice(sym))
		return false;
	if (sym->type == S_UNKNOWN)
		return undefined_ok && !sym->prop;
	return sym->type == S_BOOLEAN || sym->type == S_TRISTATE;
}

/* Can @e be written back as Kconfig, meaning in a fragment what it means
 * in the tree? */
static bool expr_plain(struct expr *e)
{
	if (!e)
		return true;
	switch (e->type) {
	case E_SYMBOL:
		return sym_plain(e->left.sym, true);
	case E_NOT:
		return expr_plain(e->left.expr);
	case E_AND:
	case E_OR:
		return expr_plain(e->left.expr) && expr_plain(e->right.expr);
	case E_EQUAL:
	case E_UNEQUAL:
		return sym_plain(e->left.sym, false) &&
		       sym_plain(e->right.sym, false);
	default:
		return false;
	}
}

static struct expr *expr_const(tristate t)
{
	return expr_alloc_symbol(t == yes ? &symbol_yes :
				 t == mod ? &symbol_mod : &symbol_no);
}

/* The constant value of @e (y, m, n), or -1 */
static int const_of(struct expr *e)
{
	struct symbol *sym;

	if (e->type != E_SYMBOL)
		return -1;
	sym = e->left.sym;
	return sym == &symbol_yes ? yes : sym == &symbol_mod ? mod :
	       sym == &symbol_no ? no : -1;
}

/* A copy of @e with the symbols that no Kconfig file defines as n, and
 * the constants folded: "!MAC || S390" on ARM is y */
static struct expr *fold(struct expr *e)
{
	struct expr *l, *r;
	int a, b;

	switch (e->type) {
	case E_SYMBOL:
		if (const_of(e) < 0 && e->left.sym->type == S_UNKNOWN)
			return expr_const(no);
		return expr_copy(e);
	case E_NOT:
		l = fold(e->left.expr);
		a = const_of(l);
		if (a < 0)
			return expr_alloc_one(E_NOT, l);
		expr_free(l);
		return expr_const(2 - a);
	case E_AND:
	case E_OR:
		l = fold(e->left.expr);
		r = fold(e->right.expr);
		a = const_of(l);
		b = const_of(r);
		if (a >= 0 && b >= 0) {
			expr_free(l);
			expr_free(r);
			return expr_const(e->type == E_AND ? (a < b ? a : b) :
					  (a > b ? a : b));
		}
		/* y && X and n || X are X; n && X is n, y || X is y */
		if (a >= 0 || b >= 0) {
			struct expr *c = a >= 0 ? l : r, *x = a >= 0 ? r : l;
			int v = a >= 0 ? a : b;

			if ((e->type == E_AND && v == yes) ||
			    (e->type == E_OR && v == no)) {
				expr_free(c);
				return x;
			}
			if ((e->type == E_AND && v == no) ||
			    (e->type == E_OR && v == yes)) {
				expr_free(x);
				return c;
			}
		}
		return expr_alloc_two(e->type, l, r);
	default:
		return expr_copy(e);
	}
}

static void print_sym(struct symbol *sym)
{
	if (sym->type == S_UNKNOWN && sym != &symbol_yes &&
	    sym != &symbol_mod && sym != &symbol_no)
		fputs("n", stdout);
	else
		fputs(sym->name, stdout);
}

/* @e in Kconfig's syntax, with parentheses around an || inside an && and
 * around any operand of ! but a symbol */
static void print_expr(struct expr *e, enum expr_type parent)
{
	bool paren;

	switch (e->type) {
	case E_SYMBOL:
		print_sym(e->left.sym);
		break;
	case E_NOT:
		putchar('!');
		print_expr(e->left.expr, E_NOT);
		break;
	case E_EQUAL:
	case E_UNEQUAL:
		paren = parent == E_NOT;
		if (paren)
			putchar('(');
		print_sym(e->left.sym);
		fputs(e->type == E_EQUAL ? " = " : " != ", stdout);
		print_sym(e->right.sym);
		if (paren)
			putchar(')');
		break;
	case E_AND:
	case E_OR:
		paren = parent == E_NOT || (parent == E_AND && e->type == E_OR);
		if (paren)
			putchar('(');
		print_expr(e->left.expr, e->type);
		fputs(e->type == E_AND ? " && " : " || ", stdout);
		print_expr(e->right.expr, e->type);
		if (paren)
			putchar(')');
		break;
	default:
		break;
	}
}

/* The one default of @sym, if a fragment can restate it as a select */
static struct property *restatable_default(struct symbol *sym)
{
	struct property *prop, *found = NULL;

	if (!sym->name || sym_is_choice(sym) || sym_is_choice_value(sym) ||
	    (sym->type != S_BOOLEAN && sym->type != S_TRISTATE) ||
	    !has_prompt(sym) || sym == modules_sym)
		return NULL;
	/* what implies a tristate can also make its m y: not restated */
	if (sym->implied.expr && (sym->type != S_BOOLEAN ||
				  !expr_plain(sym->implied.expr) ||
				  !expr_plain(sym->dir_dep.expr)))
		return NULL;
	for_all_defaults(sym, prop) {
		if (found)
			return NULL;
		found = prop;
	}
	if (!found || !expr_plain(found->expr) ||
	    !expr_plain(found->visible.expr))
		return NULL;
	return found;
}

static void print_cond(struct symbol *sym)
{
	struct property *prop = restatable_default(sym);
	struct expr *e;

	if (!prop)
		return;
	/* "default y" is the condition alone; a default with no condition
	 * is y */
	if (prop->expr->type == E_SYMBOL && prop->expr->left.sym == &symbol_yes)
		e = expr_copy(prop->visible.expr);
	else
		e = expr_alloc_and(expr_copy(prop->visible.expr),
				   expr_copy(prop->expr));
	/* and what implies it, within its dependencies, as conf does */
	if (sym->implied.expr && e)
		e = expr_alloc_or(e, expr_alloc_and(expr_copy(sym->implied.expr),
						    expr_copy(sym->dir_dep.expr)));
	printf("cond %s ", sym->name);
	if (e) {
		struct expr *f = fold(e);

		print_expr(f, E_NONE);
		expr_free(f);
	}
	else
		putchar('y');
	putchar('\n');
	expr_free(e);
}

static void print_default(struct symbol *sym)
{
	struct property *prop = restatable_default(sym);
	tristate t, d;

	if (!prop)
		return;
	sym_calc_value(sym);
	t = sym_get_tristate_value(sym);
	d = EXPR_AND(expr_calc_value(prop->expr),
		     expr_calc_value(prop->visible.expr));
	if (sym->implied.expr)
		d = EXPR_OR(d, EXPR_AND(expr_calc_value(sym->implied.expr),
					expr_calc_value(sym->dir_dep.expr)));
	/* conf makes a bool's m y */
	if (sym->type == S_BOOLEAN && d == mod)
		d = yes;
	if (t != no || d != no)
		printf("default %s %c %c %c\n", sym->name, tri_char[t],
		       tri_char[sym->rev_dep.tri], tri_char[d]);
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

/* What "make alldefconfig" gives the visible bool or tristate @sym
 * without a user value: its first default whose condition holds, or'ed
 * with what implies it within its dependencies, as sym_calc_value()
 * computes it; a bool's m is y */
static tristate default_tri(struct symbol *sym)
{
	struct property *prop;
	tristate d = no;

	for_all_defaults(sym, prop) {
		tristate vis = expr_calc_value(prop->visible.expr);

		if (vis == no)
			continue;
		d = EXPR_AND(expr_calc_value(prop->expr), vis);
		break;
	}
	if (sym->implied.expr && expr_calc_value(sym->implied.expr) != no)
		d = EXPR_AND(EXPR_OR(d, expr_calc_value(sym->implied.expr)),
			     expr_calc_value(sym->dir_dep.expr));
	if (d == mod && sym_get_type(sym) == S_BOOLEAN)
		d = yes;
	return d;
}

static void print_symbol(struct symbol *sym)
{
	tristate val, d;

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
			if (val == mod)
				printf("tristate-choice %s\n", sym->name);
			else if (val == yes && choice_default_of(sym) != sym)
				printf("choice %s\n", sym->name);
			return;
		}
		d = default_tri(sym);
		if (val < d)
			printf("below %s %c\n", sym->name, tri_char[val]);
		if (val <= sym->rev_dep.tri)
			break;
		if (val <= d && sym->dir_dep.tri >= val)
			printf("given %s\n", sym->name);
		/* a select would be unmet (x86's CPU_MITIGATIONS: its
		 * arch/Kconfig definition's dependency is the symbol's
		 * whole direct dependency, as a definition without one adds
		 * nothing): the value goes in CONFIG instead */
		printf("%s %s %c\n", sym->dir_dep.tri < val ? "set" : "select",
		       sym->name, val == yes ? 'y' : 'm');
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
	for_each_symbol(i, sym)
		print_cond(sym);
	for (n = 2; n < ac; n++) {
		if (conf_read(av[n])) {
			fprintf(stderr, "kconfig-import: %s: cannot read\n", av[n]);
			return 2;
		}
		printf("config %s\n", av[n]);
		for_each_symbol(i, sym) {
			print_symbol(sym);
			print_default(sym);
		}
	}
	return 0;
}
