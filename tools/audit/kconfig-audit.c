// SPDX-License-Identifier: GPL-2.0
/*
 * kconfig-audit: find every select that some configuration can leave
 * unmet, with a SAT solver (PicoSAT), from the parsed Kconfig tree.
 *
 *   kconfig-audit [--out DIR] [--limit N] [--only SYMBOL] [--own] Kconfig
 *
 * --only asks about the selects of SYMBOL alone, --limit about the first N,
 * --own about those of a fragment's own files: the files that its first
 * file reaches without going through the tree's Kconfig.
 *
 * Built against the kconfig sources of the tree it audits (tools/audit/
 * build), it runs where conf runs: srctree, ARCH, SRCARCH, CC... in the
 * environment, as "make" sets them.
 *
 * The encoding.  A bool or tristate symbol is two variables, y and m (n is
 * neither; m only while MODULES is y).  An expression is a pair of
 * literals, "at least m" and "y", built with Tseitin variables: && is the
 * minimum, || the maximum, ! is 2 - v, and = / != between bool or
 * tristate operands compare both.  Any other comparison (strings, numbers,
 * <, >) is a free variable: that is the coarse part.  Each symbol's value
 * is tied to the tree as sym_calc_value() computes it:
 *
 *   v >= rev_dep                         selects force it up
 *   without a visible prompt: v = max(D, rev_dep)
 *   with one:                 v <= max(visibility, D, rev_dep)
 *
 * where D is the first default whose condition holds, or'ed with what
 * implies the symbol and and'ed with its dependencies, as conf computes it;
 * m becomes y for a bool, and for every symbol while MODULES is n.  Choices
 * are left free within those bounds, but for one member at most at y, and
 * one at least while the choice is y.
 *
 * For each select of S, "select T if C", it asks: can S && C be above T's
 * direct dependencies, y above m or m above n?  (For a bool T only the
 * latter: conf makes m y on both sides.)  Each satisfying model is
 * written as a full .config, DIR/cand-N.config, for conf to confirm (the
 * encoding over-approximates what conf can reach, so a model is only a
 * candidate), and printed as one line:
 *
 *   cand N SELECTOR TARGET FILE LINE LEVEL MERGED COARSE
 *
 * LEVEL is the value of S && C in the model (y or m).  MERGED is 1 if the
 * question with y and m merged into one "on" value (as kismet asks it:
 * S on, T's dependencies n) is satisfiable too, and 0 if only the
 * tristate question is: a built-in selector of a target whose
 * dependencies allow only m.  COARSE is 1 if the target's dependencies or
 * the select's condition hold a comparison encoded as a free variable.  A
 * summary line ends the output:
 *
 *   summary SELECTS CANDIDATES UNSAT VARS CLAUSES COARSE SECONDS CARRIED
 *
 * CARRIED counts the selects (among UNSAT) whose own condition carries
 * every conjunct of the target's dependencies: no solver call is needed.
 *
 * Exit status: 0 no candidate, 1 candidates, 2 usage or I/O error.
 */

#define main kconfig_conf_main
#include "conf.c"
#undef main

#include <picosat/picosat.h>
#include <stdint.h>
#include <time.h>

/*
 * Linux 6.11 reworked choices (no P_CHOICE: the choice menu lists its
 * members), and 6.12 keeps the symbols and the files in hash tables, a
 * property's file as a name.  tools/audit/build defines
 * KCONFIG_CHOICE_MENUS for such a tree.
 */
#ifdef KCONFIG_CHOICE_MENUS
#define for_each_symbol(i, sym)	for_all_symbols(sym)
#define prop_file_name(prop)	((prop)->filename)
#define file_parent(name)	file_get_parent(name)
#else
#define for_each_symbol(i, sym)	for_all_symbols(i, sym)
#define prop_file_name(prop)	((prop)->file->name)

static const char *file_parent(const char *name)
{
	struct file *f;

	for (f = file_list; f; f = f->next)
		if (!strcmp(f->name, name))
			return f->parent ? f->parent->name : NULL;
	return NULL;
}
#endif

static PicoSAT *ps;
static int lit_true;
static int coarse;		/* comparisons encoded as free variables */

/* A tristate value: "at least m" and "y" (y implies at least m) */
struct tv {
	int g, y;
};

static struct tv tv_const(tristate t)
{
	struct tv v = { t != no ? lit_true : -lit_true,
			t == yes ? lit_true : -lit_true };

	return v;
}

static int new_var(void)
{
	return picosat_inc_max_var(ps);
}

static void clause(int a, int b, int c)
{
	picosat_add(ps, a);
	if (b)
		picosat_add(ps, b);
	if (c)
		picosat_add(ps, c);
	picosat_add(ps, 0);
}

static int lit_and(int a, int b)
{
	int x;

	if (a == lit_true || a == b)
		return b;
	if (b == lit_true)
		return a;
	if (a == -lit_true || b == -lit_true || a == -b)
		return -lit_true;
	x = new_var();
	clause(-x, a, 0);
	clause(-x, b, 0);
	clause(x, -a, -b);
	return x;
}

static int lit_or(int a, int b)
{
	return -lit_and(-a, -b);
}

/* a <-> b */
static int lit_iff(int a, int b)
{
	return lit_or(lit_and(a, b), lit_and(-a, -b));
}

static struct tv tv_and(struct tv a, struct tv b)
{
	struct tv v = { lit_and(a.g, b.g), lit_and(a.y, b.y) };

	return v;
}

static struct tv tv_or(struct tv a, struct tv b)
{
	struct tv v = { lit_or(a.g, b.g), lit_or(a.y, b.y) };

	return v;
}

static struct tv tv_not(struct tv a)
{
	struct tv v = { -a.y, -a.g };

	return v;
}

/* @x ? @a : @b */
static struct tv tv_ite(int x, struct tv a, struct tv b)
{
	struct tv v = {
		lit_or(lit_and(x, a.g), lit_and(-x, b.g)),
		lit_or(lit_and(x, a.y), lit_and(-x, b.y)),
	};

	return v;
}

/* The variables of each bool or tristate symbol, by symbol */
struct sym_vars {
	int y, m, g;
};

/* symbol -> its variables: an open-addressing table, by pointer */
static struct {
	struct symbol *sym;
	struct sym_vars *vars;
} *var_table;
static size_t var_table_size;

static size_t var_slot(struct symbol *sym)
{
	size_t h = ((uintptr_t)sym >> 4) * 2654435761u;

	for (h &= var_table_size - 1; var_table[h].sym && var_table[h].sym != sym;
	     h = (h + 1) & (var_table_size - 1))
		;
	return h;
}

static struct sym_vars *vars_of(struct symbol *sym)
{
	return var_table_size ? var_table[var_slot(sym)].vars : NULL;
}

static void set_vars(struct symbol *sym, struct sym_vars *sv)
{
	size_t h = var_slot(sym);

	var_table[h].sym = sym;
	var_table[h].vars = sv;
}

static bool is_bool_tri(struct symbol *sym)
{
	return sym->type == S_BOOLEAN || sym->type == S_TRISTATE;
}

static struct tv tv_sym(struct symbol *sym)
{
	struct sym_vars *sv;
	struct tv v;

	if (sym == &symbol_yes)
		return tv_const(yes);
	if (sym == &symbol_mod)
		return tv_const(mod);
	if (sym == &symbol_no || !is_bool_tri(sym) || !vars_of(sym))
		return tv_const(no);
	sv = vars_of(sym);
	v.g = sv->g;
	v.y = sv->y;
	return v;
}

/* Can @sym take part in a tristate comparison? */
static bool tv_operand(struct symbol *sym)
{
	return sym == &symbol_yes || sym == &symbol_mod || sym == &symbol_no ||
	       (is_bool_tri(sym) && vars_of(sym));
}

static struct tv tv_expr(struct expr *e)
{
	struct tv a, b, v;
	int eq;

	if (!e)
		return tv_const(yes);
	switch (e->type) {
	case E_SYMBOL:
		return tv_sym(e->left.sym);
	case E_NOT:
		return tv_not(tv_expr(e->left.expr));
	case E_AND:
		return tv_and(tv_expr(e->left.expr), tv_expr(e->right.expr));
	case E_OR:
		return tv_or(tv_expr(e->left.expr), tv_expr(e->right.expr));
	case E_EQUAL:
	case E_UNEQUAL:
		if (tv_operand(e->left.sym) && tv_operand(e->right.sym)) {
			a = tv_sym(e->left.sym);
			b = tv_sym(e->right.sym);
			eq = lit_and(lit_iff(a.g, b.g), lit_iff(a.y, b.y));
			if (e->type == E_UNEQUAL)
				eq = -eq;
			v.g = v.y = eq;
			return v;
		}
		break;
	default:
		break;
	}
	/* strings, numbers and orderings: anything */
	coarse++;
	v.g = v.y = new_var();
	return v;
}

/* m becomes y where @sym cannot be m */
static struct tv tv_promote(struct symbol *sym, struct tv v)
{
	struct tv p = v;
	int bool_like;

	if (sym->type == S_BOOLEAN)
		bool_like = lit_true;
	else if (modules_sym && vars_of(modules_sym))
		bool_like = -vars_of(modules_sym)->y;
	else
		bool_like = lit_true;
	p.y = lit_or(v.y, lit_and(bool_like, v.g));
	return p;
}

/* The value the defaults give @sym, as sym_calc_value() takes it */
static struct tv tv_default(struct symbol *sym)
{
	struct property *prop, *defs[256];
	struct tv d = tv_const(no);
	int n = 0;

	for_all_defaults(sym, prop)
		if (n < (int)ARRAY_SIZE(defs))
			defs[n++] = prop;
	/* the first default whose condition holds */
	while (n-- > 0) {
		struct tv vis = tv_expr(defs[n]->visible.expr);

		d = tv_ite(vis.g, tv_and(tv_expr(defs[n]->expr), vis), d);
	}
	if (sym->implied.expr)
		d = tv_and(tv_or(d, tv_expr(sym->implied.expr)),
			   tv_expr(sym->dir_dep.expr));
	return d;
}

static void tie_eq(struct symbol *sym, struct tv x)
{
	struct sym_vars *sv = vars_of(sym);

	clause(-sv->g, x.g, 0);
	clause(sv->g, -x.g, 0);
	clause(-sv->y, x.y, 0);
	clause(sv->y, -x.y, 0);
}

static void tie_ge(struct symbol *sym, struct tv x)
{
	struct sym_vars *sv = vars_of(sym);

	clause(-x.g, sv->g, 0);
	clause(-x.y, sv->y, 0);
}

static void tie_le(struct symbol *sym, struct tv x)
{
	struct sym_vars *sv = vars_of(sym);

	clause(-sv->g, x.g, 0);
	clause(-sv->y, x.y, 0);
}

static void encode_symbol(struct symbol *sym)
{
	struct property *prop;
	struct tv rev, vis = tv_const(no), d;
	bool prompt = false;

	rev = sym->rev_dep.expr ? tv_expr(sym->rev_dep.expr) : tv_const(no);
	for_all_prompts(sym, prop) {
		prompt = true;
		vis = tv_or(vis, tv_expr(prop->visible.expr));
	}
	vis = tv_promote(sym, vis);
	tie_ge(sym, rev);
	if (sym_is_choice(sym) || sym_is_choice_value(sym)) {
		tie_le(sym, tv_or(vis, rev));
		return;
	}
	d = tv_default(sym);
	if (!prompt) {
		tie_eq(sym, tv_promote(sym, tv_or(d, rev)));
		return;
	}
	/* not visible: the defaults decide; visible: up to the user */
	tie_eq(sym, tv_ite(vis.g, tv_sym(sym),
			   tv_promote(sym, tv_or(d, rev))));
	tie_le(sym, tv_promote(sym, tv_or(vis, tv_or(d, rev))));
}

/* One member of a choice at most is y, and one at least while it is y */
#ifdef KCONFIG_CHOICE_MENUS
static void encode_choice(struct symbol *choice)
{
	struct menu *menu;
	struct symbol *a, *b;

	if (list_empty(&choice->menus) || !vars_of(choice))
		return;
	menu = list_first_entry(&choice->menus, struct menu, link);
	picosat_add(ps, -vars_of(choice)->y);
	list_for_each_entry(a, &menu->choice_members, choice_link)
		if (vars_of(a))
			picosat_add(ps, vars_of(a)->y);
	picosat_add(ps, 0);
	list_for_each_entry(a, &menu->choice_members, choice_link) {
		if (!vars_of(a))
			continue;
		for (b = list_next_entry(a, choice_link);
		     !list_entry_is_head(b, &menu->choice_members, choice_link);
		     b = list_next_entry(b, choice_link))
			if (vars_of(b))
				clause(-vars_of(a)->y, -vars_of(b)->y, 0);
	}
}
#else
static void encode_choice(struct symbol *choice)
{
	struct property *prop = sym_get_choice_prop(choice);
	struct symbol *a, *b;
	struct expr *e, *f;

	if (!prop || !vars_of(choice))
		return;
	picosat_add(ps, -vars_of(choice)->y);
	expr_list_for_each_sym(prop->expr, e, a)
		if (vars_of(a))
			picosat_add(ps, vars_of(a)->y);
	picosat_add(ps, 0);
	expr_list_for_each_sym(prop->expr, e, a) {
		if (!vars_of(a))
			continue;
		for (f = e->left.expr; f; f = f->left.expr) {
			b = f->right.sym;
			if (vars_of(b))
				clause(-vars_of(a)->y, -vars_of(b)->y, 0);
		}
	}
}
#endif

/* Does @e compare what the encoding cannot (a free variable)? */
static bool expr_is_coarse(struct expr *e)
{
	if (!e)
		return false;
	switch (e->type) {
	case E_SYMBOL:
		return false;
	case E_NOT:
		return expr_is_coarse(e->left.expr);
	case E_AND:
	case E_OR:
		return expr_is_coarse(e->left.expr) ||
		       expr_is_coarse(e->right.expr);
	case E_EQUAL:
	case E_UNEQUAL:
		return !tv_operand(e->left.sym) || !tv_operand(e->right.sym);
	default:
		return true;
	}
}

static bool expr_same(struct expr *a, struct expr *b)
{
	if (!a || !b || a->type != b->type)
		return a == b;
	switch (a->type) {
	case E_SYMBOL:
		return a->left.sym == b->left.sym;
	case E_NOT:
		return expr_same(a->left.expr, b->left.expr);
	case E_AND:
	case E_OR:
		return expr_same(a->left.expr, b->left.expr) &&
		       expr_same(a->right.expr, b->right.expr);
	case E_EQUAL:
	case E_UNEQUAL:
	case E_LTH:
	case E_LEQ:
	case E_GTH:
	case E_GEQ:
		return a->left.sym == b->left.sym &&
		       a->right.sym == b->right.sym;
	default:
		return false;
	}
}

/* Is @c one of the top-level conjuncts of @e? */
static bool has_conjunct(struct expr *e, struct expr *c)
{
	if (!e)
		return false;
	if (e->type == E_AND)
		return has_conjunct(e->left.expr, c) ||
		       has_conjunct(e->right.expr, c);
	return expr_same(e, c);
}

/*
 * Does the select's own condition (the selector's dependencies, as
 * menu_finalize() puts them there, and its "if") carry every conjunct of
 * the target's dependencies?  Then S && C is never above them, unless S
 * is itself forced above its dependencies by an unmet select, which is
 * found as a finding of its own.
 */
static bool select_carries_deps(struct expr *deps, struct expr *cond)
{
	if (!deps)
		return true;
	if (deps->type == E_AND)
		return select_carries_deps(deps->left.expr, cond) &&
		       select_carries_deps(deps->right.expr, cond);
	return has_conjunct(cond, deps);
}

static void make_vars(void)
{
	struct symbol *sym;
	struct sym_vars *sv;
	int i;

	lit_true = new_var();
	clause(lit_true, 0, 0);
	for_each_symbol(i, sym)
		var_table_size++;
	for (i = 1; i < 2 * (int)var_table_size; i <<= 1)
		;
	var_table_size = i;
	var_table = xcalloc(var_table_size, sizeof(*var_table));
	for_each_symbol(i, sym) {
		if (!is_bool_tri(sym) || sym->flags & SYMBOL_CONST ||
		    sym == &symbol_yes || sym == &symbol_mod ||
		    sym == &symbol_no)
			continue;
		sv = xcalloc(1, sizeof(*sv));
		sv->y = new_var();
		sv->m = new_var();
		clause(-sv->y, -sv->m, 0);
		if (sym->type == S_BOOLEAN)
			clause(-sv->m, 0, 0);
		sv->g = lit_or(sv->y, sv->m);
		set_vars(sym, sv);
	}
	/* m only with MODULES */
	if (modules_sym && vars_of(modules_sym))
		for_each_symbol(i, sym)
			if (vars_of(sym) && sym->type == S_TRISTATE)
				clause(-vars_of(sym)->m,
				       vars_of(modules_sym)->y, 0);
}

static char value_char(struct symbol *sym)
{
	struct sym_vars *sv = vars_of(sym);

	if (picosat_deref(ps, sv->y) > 0)
		return 'y';
	if (picosat_deref(ps, sv->m) > 0)
		return 'm';
	return 'n';
}

/* The model as a full .config: every bool and tristate symbol */
static int write_model(const char *path)
{
	struct symbol *sym;
	FILE *f = fopen(path, "w");
	int i;

	if (!f) {
		fprintf(stderr, "kconfig-audit: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	fprintf(f, "# a model of kconfig-audit, for conf to confirm\n");
	for_each_symbol(i, sym) {
		char c;

		if (!vars_of(sym) || !sym->name)
			continue;
		c = value_char(sym);
		if (c == 'n')
			fprintf(f, "# %s%s is not set\n", CONFIG_, sym->name);
		else
			fprintf(f, "%s%s=%c\n", CONFIG_, sym->name, c);
	}
	if (fclose(f)) {
		fprintf(stderr, "kconfig-audit: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Is the file @name one of the fragment's own, reached from the root file
 * without going through the tree's Kconfig?
 */
static bool file_is_own(const char *name)
{
	for (; name; name = file_parent(name))
		if (!strcmp(name, "Kconfig"))
			return false;
	return true;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int ac, char **av)
{
	const char *out = ".", *kconfig = NULL, *only = NULL;
	bool own = false;
	int i, limit = -1, selects = 0, cands = 0, unsat = 0, carried = 0;
	double start = now();
	struct symbol *sym;
	struct property *prop;
	struct gstr path;

	for (i = 1; i < ac; i++) {
		if (!strcmp(av[i], "--out") && i + 1 < ac)
			out = av[++i];
		else if (!strcmp(av[i], "--limit") && i + 1 < ac)
			limit = atoi(av[++i]);
		else if (!strcmp(av[i], "--only") && i + 1 < ac)
			only = av[++i];
		else if (!strcmp(av[i], "--own"))
			own = true;
		else if (av[i][0] != '-' && !kconfig)
			kconfig = av[i];
		else
			kconfig = NULL, i = ac + 1;
	}
	if (!kconfig || i > ac) {
		fprintf(stderr,
			"usage: kconfig-audit [--out DIR] [--limit N] [--only SYMBOL] [--own] Kconfig\n");
		return 2;
	}
	conf_parse(kconfig);

	ps = picosat_init();
	make_vars();
	for_each_symbol(i, sym) {
		if (!vars_of(sym))
			continue;
		encode_symbol(sym);
		if (sym_is_choice(sym))
			encode_choice(sym);
	}
	fprintf(stderr, "kconfig-audit: %d variables, %d clauses, %d coarse comparisons, %.1f s\n",
		picosat_variables(ps), picosat_added_original_clauses(ps),
		coarse, now() - start);
	/* the tree itself must have a model, or every answer is "no" */
	if (picosat_sat(ps, -1) != PICOSAT_SATISFIABLE) {
		fprintf(stderr, "kconfig-audit: %s: the encoding has no model\n",
			kconfig);
		return 2;
	}

	for_each_symbol(i, sym) {
		if (!vars_of(sym) || (only && (!sym->name ||
					       strcmp(sym->name, only))))
			continue;
		for_all_properties(sym, prop, P_SELECT) {
			struct symbol *target = prop->expr->left.sym;
			struct tv term, dir;
			int q, merged, res;

			if (!vars_of(target) || !target->dir_dep.expr ||
			    (own && !file_is_own(prop_file_name(prop))))
				continue;
			if (limit >= 0 && selects >= limit)
				break;
			selects++;
			if (select_carries_deps(target->dir_dep.expr,
						prop->visible.expr)) {
				carried++;
				unsat++;
				continue;
			}
			term = tv_and(tv_sym(sym), tv_expr(prop->visible.expr));
			dir = tv_expr(target->dir_dep.expr);
			merged = lit_and(term.g, -dir.g);
			/*
			 * sym_calc_visibility() makes m y in a bool's direct
			 * and reverse dependencies: only "on above off" is
			 * unmet there
			 */
			if (target->type == S_BOOLEAN)
				q = merged;
			else
				q = lit_or(merged, lit_and(term.y, -dir.y));
			picosat_assume(ps, q);
			res = picosat_sat(ps, -1);
			if (selects % 500 == 0)
				fprintf(stderr, "kconfig-audit: %d selects, %d candidates, %.1f s\n",
					selects, cands, now() - start);
			if (res != PICOSAT_SATISFIABLE) {
				unsat++;
				continue;
			}
			cands++;
			path = str_new();
			str_printf(&path, "%s/cand-%d.config", out, cands);
			if (write_model(str_get(&path)))
				return 2;
			str_free(&path);
			printf("cand %d %s %s %s %d %c ", cands, sym->name,
			       target->name, prop_file_name(prop), prop->lineno,
			       picosat_deref(ps, term.y) > 0 ? 'y' : 'm');
			picosat_assume(ps, merged);
			printf("%d %d\n", picosat_sat(ps, -1) ==
			       PICOSAT_SATISFIABLE,
			       expr_is_coarse(target->dir_dep.expr) ||
			       expr_is_coarse(prop->visible.expr));
			fflush(stdout);
		}
	}
	printf("summary %d %d %d %d %d %d %.1f %d\n", selects, cands, unsat,
	       picosat_variables(ps), picosat_added_original_clauses(ps),
	       coarse, now() - start, carried);
	picosat_reset(ps);
	return cands ? 1 : 0;
}
