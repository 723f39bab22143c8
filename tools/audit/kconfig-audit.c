// SPDX-License-Identifier: GPL-2.0
/*
 * kconfig-audit: find every select that some configuration can leave
 * unmet, with a SAT solver (PicoSAT), from the parsed Kconfig tree.
 *
 *   kconfig-audit [--out DIR] [--limit N] [--only SYMBOL] [--own]
 *                 [--known FILE] [--jobs N] Kconfig
 *
 * --only asks about the selects of SYMBOL alone, --limit about the first N,
 * --own about those of a fragment's own files: the files that its first
 * file reaches without going through the tree's Kconfig.  --jobs answers
 * the questions in N processes (answer_all()); the output is the same.
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
 * Every select asked has a line of its own, before its "cand" line:
 *
 *   q HASH RESULT SELECTOR TARGET FILE LINE CONE CONDITION
 *
 * HASH names the question across trees: the select, its condition and
 * the definitions of the symbols of its cone of influence (cone_of(),
 * CONE of them), so a tree where these are the same has the same answer.
 * RESULT is carried (HASH and CONE 0: the select's own condition answers
 * it, no cone is needed), unsat, unsat-tree (the cone alone has a model,
 * the whole tree none: not an answer of the cone, not to be kept), cand-N,
 * or known: HASH is one of those that --known FILE lists (one hex hash a
 * line, the answers the caller keeps), and the solver is not asked.
 * CONDITION is the select's condition as written (its "if" and the
 * selector's dependencies), to the end of the line.  A summary line ends
 * the output:
 *
 *   summary SELECTS CANDIDATES UNSAT VARS CLAUSES COARSE SECONDS CARRIED
 *           KNOWN CONE_MAX CONE_SUM
 *
 * CARRIED counts the selects (among UNSAT) whose condition carries every
 * conjunct of the target's dependencies, through the dependencies of its
 * symbols (select_carries_deps_through()): no solver call is needed.  The
 * others are each asked of a solver with the clauses of their cone only
 * (cone_solver()), a candidate again of the whole tree's, for its model.
 * KNOWN counts those that --known answered; CONE_MAX and CONE_SUM the
 * cones of the questions solved.
 *
 * Exit status: 0 no candidate, 1 candidates, 2 usage or I/O error.
 */

#define main kconfig_conf_main
#include "conf.c"
#undef main

#include <picosat/picosat.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * What the kconfig sources of one version have and another lacks, so that
 * the program builds against any tree, with or without the series: 6.9
 * moved xmalloc() and friends to scripts/include/xalloc.h, which a stock
 * conf.c does not include, and 6.1 has no ARRAY_SIZE().
 */
#if __has_include(<xalloc.h>)
#include <xalloc.h>
#endif
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr)	(sizeof(arr) / sizeof((arr)[0]))
#endif

/*
 * Linux 6.11 reworked choices (no P_CHOICE: the choice menu lists its
 * members), and 6.12 keeps the symbols and the files in hash tables, a
 * property's file as a name.  tools/audit/build defines
 * KCONFIG_CHOICE_MENUS for such a tree.
 */
#ifdef KCONFIG_CHOICE_MENUS
#define for_each_symbol(i, sym)	for_all_symbols(sym)
#define prop_file_name(prop)	((prop)->filename)
/* kconfig-util.c: util.c's file table is static there */
const char *audit_file_parent(const char *name);
#define file_parent(name)	audit_file_parent(name)
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

/*
 * Clauses go to @sink: the solver of the whole tree, @ps, which keeps a
 * copy of what the encoding adds in @lits (each symbol's share of it is
 * its slot's range), or the solver of one question, @cone_ps, that gets
 * only the clauses of the question's cone, its variables numbered afresh
 * (local_lit()).
 */
static PicoSAT *sink, *cone_ps;
static int *lits;
static size_t nlits, lits_cap;
static bool recording;
static int *local_of;
static unsigned int *local_gen, local_cur;
static size_t local_cap;

/* a question's own variables, above the whole tree's (cone_solver()) */
static int cone_vars;

static int new_var(void)
{
	/* the whole tree's solver stays as it was: the same models */
	if (sink != ps)
		return ++cone_vars;
	return picosat_inc_max_var(ps);
}

static int local_lit(int lit)
{
	int v = abs(lit);

	if ((size_t)v >= local_cap) {
		size_t cap = 2 * (size_t)v + 1024;

		local_of = xrealloc(local_of, cap * sizeof(*local_of));
		local_gen = xrealloc(local_gen, cap * sizeof(*local_gen));
		memset(local_gen + local_cap, 0,
		       (cap - local_cap) * sizeof(*local_gen));
		local_cap = cap;
	}
	if (local_gen[v] != local_cur) {
		local_gen[v] = local_cur;
		local_of[v] = picosat_inc_max_var(cone_ps);
	}
	return lit < 0 ? -local_of[v] : local_of[v];
}

static void emit(int lit)
{
	if (sink != ps) {
		picosat_add(sink, lit ? local_lit(lit) : 0);
		return;
	}
	if (recording) {
		if (nlits == lits_cap) {
			lits_cap = lits_cap ? 2 * lits_cap : 1 << 20;
			lits = xrealloc(lits, lits_cap * sizeof(*lits));
		}
		lits[nlits++] = lit;
	}
	picosat_add(ps, lit);
}

static void clause(int a, int b, int c)
{
	emit(a);
	if (b)
		emit(b);
	if (c)
		emit(c);
	emit(0);
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

/*
 * symbol -> its variables: an open-addressing table, by pointer, with a
 * slot for every bool and tristate symbol.  The slot keeps the hash of
 * the symbol's definition too (def_hash()), and the generation of the
 * last cone of influence that holds it (cone_of()).
 */
struct var_slot {
	struct symbol *sym;
	struct sym_vars vars;
	size_t vars_from, vars_to;	/* its clauses in lits[] */
	size_t def_from, def_to;
	unsigned int gen;
	uint64_t hash;
	unsigned int carry_gen;	/* sym_carries() failed in that search */
	int carry_depth;	/* with that depth left */
};
static struct var_slot *var_table;
static size_t var_table_size;
static unsigned int cur_gen = 1;
/* The symbols of the cone of influence of the select asked */
static struct symbol **cone;
static int cone_len, cone_cap;

static size_t var_slot(struct symbol *sym)
{
	size_t h = ((uintptr_t)sym >> 4) * 2654435761u;

	for (h &= var_table_size - 1; var_table[h].sym && var_table[h].sym != sym;
	     h = (h + 1) & (var_table_size - 1))
		;
	return h;
}

static struct var_slot *slot_of(struct symbol *sym)
{
	struct var_slot *s;

	if (!var_table_size)
		return NULL;
	s = &var_table[var_slot(sym)];
	return s->sym == sym ? s : NULL;
}

static struct sym_vars *vars_of(struct symbol *sym)
{
	struct var_slot *s = slot_of(sym);

	return s ? &s->vars : NULL;
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
	/*
	 * strings, numbers and orderings: anything (counted once: a
	 * candidate's question is encoded again for the whole tree)
	 */
	if (sink != ps || recording)
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
	emit(-vars_of(choice)->y);
	list_for_each_entry(a, &menu->choice_members, choice_link)
		if (vars_of(a))
			emit(vars_of(a)->y);
	emit(0);
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
	emit(-vars_of(choice)->y);
	expr_list_for_each_sym(prop->expr, e, a)
		if (vars_of(a))
			emit(vars_of(a)->y);
	emit(0);
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

static bool has_vars(struct symbol *sym)
{
	return is_bool_tri(sym) && !(sym->flags & SYMBOL_CONST) &&
	       sym != &symbol_yes && sym != &symbol_mod && sym != &symbol_no;
}

/* How far cond_carries() follows dependencies from symbol to symbol */
#define CARRY_DEPTH	6

/* The target of the select asked: no chain may assume it is met */
static struct symbol *carry_target;
/*
 * Chains assume that the unmet selects that could break them are asked
 * too: not so with --own, --only or --limit, which ask some selects only
 */
static bool carry_chains = true;
/* One search for one conjunct of it: what failed there fails again */
static unsigned int carry_gen;

static bool sym_carries(struct symbol *f, struct expr *d, bool tri,
			int depth);
static bool cond_carries(struct expr *cond, struct expr *d, bool tri,
			 int depth);
static bool disjuncts_carry(struct expr *e, struct expr *d, bool tri,
			    int depth);

/*
 * Does @f, on while @cond holds, select @d?  A select forces its target
 * to @f's value at least.  What @f selects does not carry @d through its
 * own dependencies: @f may force it above them, and that unmet select,
 * a sibling of the one asked, could be carried the same way through the
 * select asked (VIDEO_TM6000 selects two tuners of one menu).  The
 * chains follow dependencies only, which kconfig keeps free of cycles.
 */
static bool selects_carry(struct symbol *f, struct expr *cond, struct expr *d)
{
	struct property *prop;

	/* conf does not force a choice value by its selects */
	if (d->type != E_SYMBOL || sym_is_choice_value(d->left.sym))
		return false;
	for_all_properties(f, prop, P_SELECT)
		if (prop->expr->left.sym == d->left.sym &&
		    select_carries_deps(prop->visible.expr, cond))
			return true;
	return false;
}

/*
 * Is @sym defined once?  A definition without "depends on" adds nothing
 * to dir_dep (expr_alloc_or() of an expression and nothing is the
 * expression), yet its prompt or default sets the symbol freely.
 */
static bool defined_once(struct symbol *sym)
{
#ifdef KCONFIG_CHOICE_MENUS
	return !list_empty(&sym->menus) && sym->menus.next == sym->menus.prev;
#else
	struct property *prop;
	int n = 0;

	for_all_properties(sym, prop, P_SYMBOL)
		n++;
	return n == 1;
#endif
}

static bool has_prompt_or_default(struct symbol *sym)
{
	struct property *prop;

#ifdef SYMBOL_TRANS
	/* a transitional symbol takes the user's value */
	if (sym->flags & SYMBOL_TRANS)
		return true;
#endif
	for (prop = sym->prop; prop; prop = prop->next)
		if (prop->type == P_PROMPT || prop->type == P_DEFAULT)
			return true;
	return false;
}

/*
 * Is @d at least as high as the symbol @f, when @f is not forced above
 * its dependencies?  It is if @f selects what carries it, or if @f's
 * dependencies carry it.  For a tristate question (@tri) a bool @f is y
 * over dependencies at m, so these carry only a bool @d.
 */
static bool sym_carries_once(struct symbol *f, struct expr *d, bool tri,
			     int depth)
{
	/* a bool over dependencies at m is y, and selects at m */
	if (tri && f->type != S_TRISTATE &&
	    !(d->type == E_SYMBOL && d->left.sym->type == S_BOOLEAN))
		return false;
	if (selects_carry(f, f->dir_dep.expr, d))
		return true;
	if (f->dir_dep.expr && cond_carries(f->dir_dep.expr, d, tri, depth))
		return true;
	/* without a prompt, a default or an imply, it is what selects it */
	return !has_prompt_or_default(f) && !f->implied.expr &&
	       f->rev_dep.expr &&
	       disjuncts_carry(f->rev_dep.expr, d, tri, depth);
}

/* sym_carries_once(), once for each symbol in one search */
static bool sym_carries(struct symbol *f, struct expr *d, bool tri,
			int depth)
{
	struct var_slot *slot = slot_of(f);

	if (!slot || !has_vars(f) || f == carry_target || sym_is_choice(f) ||
	    !defined_once(f) ||
	    (slot->carry_gen == carry_gen && slot->carry_depth >= depth))
		return false;
	if (sym_carries_once(f, d, tri, depth))
		return true;
	slot->carry_gen = carry_gen;
	slot->carry_depth = depth;
	return false;
}

/* Does every disjunct of @e carry @d? */
static bool disjuncts_carry(struct expr *e, struct expr *d, bool tri,
			    int depth)
{
	if (e->type == E_OR)
		return disjuncts_carry(e->left.expr, d, tri, depth) &&
		       disjuncts_carry(e->right.expr, d, tri, depth);
	return cond_carries(e, d, tri, depth);
}

/*
 * Does @cond carry @d: is it one of @cond's conjuncts, or carried by a
 * symbol that is one (sym_carries()), up to @depth symbols away?
 */
static bool cond_carries(struct expr *cond, struct expr *d, bool tri,
			 int depth)
{
	if (!cond)
		return false;
	if (cond->type == E_AND)
		return cond_carries(cond->left.expr, d, tri, depth) ||
		       cond_carries(cond->right.expr, d, tri, depth);
	if (expr_same(cond, d))
		return true;
	/* S=y carries S, and S!=n carries it while only "on" counts */
	if ((cond->type == E_EQUAL || cond->type == E_UNEQUAL) &&
	    d->type == E_SYMBOL && has_vars(d->left.sym) &&
	    cond->left.sym == d->left.sym &&
	    ((cond->type == E_EQUAL && cond->right.sym == &symbol_yes) ||
	     (cond->type == E_UNEQUAL && cond->right.sym == &symbol_no &&
	      (!tri || d->left.sym->type == S_BOOLEAN))))
		return true;
	return cond->type == E_SYMBOL && depth > 0 &&
	       sym_carries(cond->left.sym, d, tri, depth - 1);
}

/*
 * The transitive form of select_carries_deps(): every conjunct of the
 * target's dependencies @deps is carried by the select's condition
 * @cond, through the dependencies and selects of its symbols.  It
 * assumes, as select_carries_deps() does of S, that those symbols are
 * not forced above their dependencies, which only an unmet select of
 * theirs can do, and that select is asked as a question of its own.
 */
static bool select_carries_deps_through(struct symbol *sym,
					struct expr *deps, struct expr *cond,
					bool tri)
{
	if (!deps)
		return true;
	if (deps->type == E_AND)
		return select_carries_deps_through(sym, deps->left.expr, cond,
						   tri) &&
		       select_carries_deps_through(sym, deps->right.expr, cond,
						   tri);
	carry_gen++;
	if (!carry_chains)
		return cond_carries(cond, deps, tri, 0) ||
		       selects_carry(sym, cond, deps);
	return cond_carries(cond, deps, tri, CARRY_DEPTH) ||
	       sym_carries(sym, deps, tri, CARRY_DEPTH) ||
	       selects_carry(sym, cond, deps);
}

/* A slot for every bool and tristate symbol, before any question */
static void make_slots(void)
{
	struct symbol *sym;
	int i;

	for_each_symbol(i, sym)
		var_table_size++;
	for (i = 1; i < 2 * (int)var_table_size; i <<= 1)
		;
	var_table_size = i;
	var_table = xcalloc(var_table_size, sizeof(*var_table));
	for_each_symbol(i, sym)
		if (has_vars(sym))
			var_table[var_slot(sym)].sym = sym;
}

/* Variables for the symbols of @syms (the slots of the generation) */
static void make_vars(struct symbol **syms, int n)
{
	struct var_slot *slot;
	struct sym_vars *sv;
	int i;

	lit_true = new_var();
	clause(lit_true, 0, 0);
	for (i = 0; i < n; i++) {
		sv = vars_of(syms[i]);
		sv->y = new_var();
		sv->m = new_var();
	}
	for (i = 0; i < n; i++) {
		slot = slot_of(syms[i]);
		sv = &slot->vars;
		slot->vars_from = nlits;
		clause(-sv->y, -sv->m, 0);
		if (syms[i]->type == S_BOOLEAN)
			clause(-sv->m, 0, 0);
		sv->g = lit_or(sv->y, sv->m);
		/* m only with MODULES */
		if (syms[i]->type == S_TRISTATE && modules_sym &&
		    vars_of(modules_sym))
			clause(-sv->m, vars_of(modules_sym)->y, 0);
		slot->vars_to = nlits;
	}
}

/* Encode the symbols of @syms, the slots of the current generation */
static void encode(struct symbol **syms, int n)
{
	int i;

	sink = ps;
	recording = true;
	make_vars(syms, n);
	for (i = 0; i < n; i++) {
		struct var_slot *slot = slot_of(syms[i]);

		slot->def_from = nlits;
		encode_symbol(syms[i]);
		if (sym_is_choice(syms[i]))
			encode_choice(syms[i]);
		slot->def_to = nlits;
	}
	recording = false;
}

static void replay(size_t from, size_t to)
{
	while (from < to)
		emit(lits[from++]);
}

/*
 * A solver of its own for the question of the cone (cone_of()): the
 * clauses of the cone's symbols only.  The others' clauses define each
 * of them from what it reads and can always be met, whatever the cone's
 * values are, so the question has the same answer, but a much smaller
 * formula: an answer costs a few milliseconds, not tens.
 */
static void cone_solver(void)
{
	struct var_slot *slot;
	int i;

	cone_ps = picosat_init();
	local_cur++;
	cone_vars = picosat_variables(ps);
	sink = cone_ps;
	clause(lit_true, 0, 0);
	for (i = 0; i < cone_len; i++) {
		slot = slot_of(cone[i]);
		replay(slot->vars_from, slot->vars_to);
		replay(slot->def_from, slot->def_to);
	}
}

/*
 * The cone of influence of a question: the symbols whose value can
 * change that of the selector, of the select's condition or of the
 * target's dependencies, as encode_symbol() ties them (prompts'
 * visibility, defaults, what selects or implies them, a choice and its
 * members).  Properties that act on other symbols (select, imply) are
 * in those symbols' rev_dep and implied.  The answer to a question
 * depends on its cone alone, so cone_hash() names the answer across
 * trees: a change that touches no symbol of the cone leaves it as it
 * was.  The cone's clauses are also all that its question's own solver
 * gets (cone_solver()).
 */

static void cone_add(struct symbol *sym)
{
	struct var_slot *s = slot_of(sym);

	if (!s || s->gen == cur_gen)
		return;
	s->gen = cur_gen;
	if (cone_len == cone_cap) {
		cone_cap = cone_cap ? 2 * cone_cap : 1024;
		cone = xrealloc(cone, cone_cap * sizeof(*cone));
	}
	cone[cone_len++] = sym;
}

static void cone_expr(struct expr *e)
{
	while (e) {
		switch (e->type) {
		case E_SYMBOL:
			cone_add(e->left.sym);
			return;
		case E_NOT:
			e = e->left.expr;
			continue;
		case E_AND:
		case E_OR:
			cone_expr(e->right.expr);
			e = e->left.expr;
			continue;
		case E_EQUAL:
		case E_UNEQUAL:
		case E_LTH:
		case E_LEQ:
		case E_GTH:
		case E_GEQ:
			cone_add(e->left.sym);
			cone_add(e->right.sym);
			return;
#ifndef KCONFIG_CHOICE_MENUS
		case E_LIST:	/* a choice's members, before 6.11 */
			cone_add(e->right.sym);
			e = e->left.expr;
			continue;
#endif
		default:
			return;
		}
	}
}

static void cone_choice(struct symbol *sym)
{
#ifdef KCONFIG_CHOICE_MENUS
	struct menu *menu;
	struct symbol *a;

	if (sym_is_choice(sym) && !list_empty(&sym->menus)) {
		menu = list_first_entry(&sym->menus, struct menu, link);
		list_for_each_entry(a, &menu->choice_members, choice_link)
			cone_add(a);
	}
	list_for_each_entry(menu, &sym->menus, link)
		if (menu->parent && menu->parent->sym &&
		    sym_is_choice(menu->parent->sym))
			cone_add(menu->parent->sym);
#else
	(void)sym;
#endif
}

static void cone_of(struct symbol *sym, struct property *sel)
{
	struct symbol *s;
	struct property *prop;
	int i;

	cur_gen++;
	cone_len = 0;
	if (modules_sym)
		cone_add(modules_sym);
	cone_add(sym);
	cone_add(sel->expr->left.sym);
	cone_expr(sel->visible.expr);
	for (i = 0; i < cone_len; i++) {
		s = cone[i];
		cone_expr(s->rev_dep.expr);
		cone_expr(s->dir_dep.expr);
		cone_expr(s->implied.expr);
		for (prop = s->prop; prop; prop = prop->next) {
			switch (prop->type) {
			case P_DEFAULT:
				cone_expr(prop->expr);
				/* fall through */
			case P_PROMPT:
				cone_expr(prop->visible.expr);
				break;
#ifndef KCONFIG_CHOICE_MENUS
			case P_CHOICE:
				cone_expr(prop->expr);
				break;
#endif
			default:
				break;
			}
		}
		cone_choice(s);
	}
}

/*
 * The hash of a symbol's definition, as the encoding reads it: its type,
 * prompts' visibility, defaults, choice, dependencies, what selects and
 * implies it; not where it is, not its help.  Two trees that define the
 * symbols of a cone alike ask the same question of it.
 */
static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;
}

/* @e as written, without the values that expr_gstr_print() adds */
static void plain_helper(void *data, struct symbol *sym, const char *str)
{
	str_append(data, str);
}

static void expr_plain(struct expr *e, struct gstr *gs)
{
	expr_print(e, plain_helper, gs, E_NONE);
}

static uint64_t hash_expr(uint64_t h, struct expr *e)
{
	struct gstr gs = str_new();

	expr_plain(e, &gs);
	h = hash_str(h, str_get(&gs));
	str_free(&gs);
	return h;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t def_hash(struct symbol *sym)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct property *prop;
	char buf[32];

	h = hash_str(h, sym->name ? sym->name : "<choice>");
	snprintf(buf, sizeof(buf), "%d %d", sym->type,
		 sym_is_choice(sym) ? 1 : 0);
	h = hash_str(h, buf);
	h = hash_expr(h, sym->dir_dep.expr);
	h = hash_expr(h, sym->rev_dep.expr);
	h = hash_expr(h, sym->implied.expr);
	for (prop = sym->prop; prop; prop = prop->next) {
		switch (prop->type) {
		case P_DEFAULT:
			h = hash_str(h, "default");
			h = hash_expr(h, prop->expr);
			h = hash_expr(h, prop->visible.expr);
			break;
		case P_PROMPT:
			h = hash_str(h, "prompt");
			h = hash_expr(h, prop->visible.expr);
			break;
#ifndef KCONFIG_CHOICE_MENUS
		case P_CHOICE:
			h = hash_str(h, "choice");
			h = hash_expr(h, prop->expr);
			break;
#endif
		default:
			break;
		}
	}
	return h;
}

/* The question's identity: the select, and the definitions of its cone */
static uint64_t cone_hash(struct symbol *sym, struct property *sel)
{
	uint64_t h = 0xcbf29ce484222325ull, sum = 0;
	int i;

	h = hash_str(h, sym->name);
	h = hash_str(h, sel->expr->left.sym->name);
	h = hash_expr(h, sel->visible.expr);
	for (i = 0; i < cone_len; i++)
		sum += mix(slot_of(cone[i])->hash);
	return mix(h ^ mix(sum + cone_len));
}

/* The answers that --known gives: a set of cone hashes */
static uint64_t *known;
static size_t known_size;

static bool is_known(uint64_t h)
{
	size_t i;

	if (!known_size)
		return false;
	for (i = mix(h) & (known_size - 1); known[i];
	     i = (i + 1) & (known_size - 1))
		if (known[i] == h)
			return true;
	return false;
}

static int read_known(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long long h;
	size_t n = 0, i;
	uint64_t *all = NULL;
	size_t cap = 0;

	if (!f) {
		fprintf(stderr, "kconfig-audit: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fscanf(f, "%llx%*[^\n]", &h) == 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			all = xrealloc(all, cap * sizeof(*all));
		}
		all[n++] = h;
	}
	fclose(f);
	for (known_size = 1; known_size < 2 * n + 2; known_size <<= 1)
		;
	known = xcalloc(known_size, sizeof(*known));
	for (i = 0; i < n; i++) {
		size_t j;

		if (!all[i] || is_known(all[i]))
			continue;
		for (j = mix(all[i]) & (known_size - 1); known[j];
		     j = (j + 1) & (known_size - 1))
			;
		known[j] = all[i];
	}
	free(all);
	return 0;
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

/* One line per select asked, for the caller's cache and comparisons */
static void print_question(uint64_t h, const char *result, struct symbol *sym,
			   struct property *prop)
{
	struct gstr cond = str_new();

	expr_plain(prop->visible.expr, &cond);
	printf("q %016llx %s %s %s %s %d %d %s\n", (unsigned long long)h,
	       result, sym->name, prop->expr->left.sym->name,
	       prop_file_name(prop), prop->lineno, cone_len, str_get(&cond));
	str_free(&cond);
}

/*
 * The question of "select T if C" of @sym, to @sink: can S && C be above
 * T's dependencies?  Returns its literal; @term is S && C, @merged the
 * question with y and m merged into "on".
 */
static int question(struct symbol *sym, struct property *prop,
		    struct tv *term, int *merged)
{
	struct symbol *target = prop->expr->left.sym;
	struct tv dir;

	*term = tv_and(tv_sym(sym), tv_expr(prop->visible.expr));
	dir = tv_expr(target->dir_dep.expr);
	*merged = lit_and(term->g, -dir.g);
	/*
	 * sym_calc_visibility() makes m y in a bool's direct and reverse
	 * dependencies: only "on above off" is unmet there
	 */
	if (target->type == S_BOOLEAN)
		return *merged;
	return lit_or(*merged, lit_and(term->y, -dir.y));
}

/* A select to ask about, and the first pass's answer (answer()) */
struct ask {
	struct symbol *sym;
	struct property *prop;
	struct answer {
		int res;	/* ASK_* */
		int cone_len;
		int coarse;	/* comparisons left free in its question */
		uint64_t h;	/* cone_hash() */
	} ans;
};

enum { ASK_CARRIED = 1, ASK_KNOWN, ASK_UNSAT, ASK_SAT };

#define MAX_JOBS	16

static struct ask *asks;
static int nasks;

/* The selects to ask about, in the order of the symbol table */
static void collect(const char *only, bool own, int limit)
{
	struct symbol *sym, *target;
	struct property *prop;
	int i, cap = 0;

	for_each_symbol(i, sym) {
		if (!has_vars(sym) || (only && (!sym->name ||
					       strcmp(sym->name, only))))
			continue;
		for_all_properties(sym, prop, P_SELECT) {
			target = prop->expr->left.sym;
			if (!has_vars(target) || !target->dir_dep.expr ||
			    (own && !file_is_own(prop_file_name(prop))))
				continue;
			if (limit >= 0 && nasks >= limit)
				return;
			if (nasks == cap) {
				cap = cap ? 2 * cap : 4096;
				asks = xrealloc(asks, cap * sizeof(*asks));
			}
			memset(&asks[nasks], 0, sizeof(*asks));
			asks[nasks].sym = sym;
			asks[nasks++].prop = prop;
		}
	}
}

/*
 * The first pass over one select: carried by its condition, known to the
 * caller (by the hash of its cone), or the answer of its cone's solver.
 */
static void answer(struct ask *a)
{
	struct symbol *target = a->prop->expr->left.sym;
	struct tv term;
	int merged, before = coarse;

	carry_target = target;
	if (select_carries_deps_through(a->sym, target->dir_dep.expr,
					a->prop->visible.expr,
					target->type != S_BOOLEAN)) {
		a->ans.res = ASK_CARRIED;
		return;
	}
	cone_of(a->sym, a->prop);
	a->ans.h = cone_hash(a->sym, a->prop);
	a->ans.cone_len = cone_len;
	if (is_known(a->ans.h)) {
		a->ans.res = ASK_KNOWN;
		return;
	}
	cone_solver();
	/* a unit, not an assumption: the solver is the question's */
	clause(question(a->sym, a->prop, &term, &merged), 0, 0);
	a->ans.res = picosat_sat(cone_ps, -1) == PICOSAT_SATISFIABLE ?
		     ASK_SAT : ASK_UNSAT;
	picosat_reset(cone_ps);
	sink = ps;
	/* counted in the second pass, whichever job asked */
	a->ans.coarse = coarse - before;
	coarse = before;
}

/* answer() for every @jobs-th select from the @w-th, with progress */
static void answer_share(int w, int jobs, double start)
{
	int k;

	for (k = w; k < nasks; k += jobs) {
		answer(&asks[k]);
		if (w == 0 && (k + jobs) / 500 != k / 500)
			fprintf(stderr, "kconfig-audit: %d of %d selects, %.1f s\n",
				k + jobs < nasks ? k + jobs : nasks, nasks,
				now() - start);
	}
}

/*
 * The first pass in @jobs processes, each with a copy of the encoding
 * (fork()): the children send their answers through a pipe, in order.
 * The second pass, in main(), is the parent's alone, so the output is
 * the same whatever @jobs.
 */
static int answer_all(int jobs, double start)
{
	FILE *from[MAX_JOBS] = { NULL };
	pid_t pid[MAX_JOBS];
	int w, k, fd[2], status;
	bool ok = true;

	fflush(stdout);
	fflush(stderr);
	for (w = 1; w < jobs; w++) {
		pid[w] = pipe(fd) ? -1 : fork();
		if (pid[w] < 0) {
			perror("kconfig-audit");
			while (--w >= 1) {
				kill(pid[w], SIGKILL);
				waitpid(pid[w], NULL, 0);
				if (from[w])
					fclose(from[w]);
			}
			return -1;
		}
		if (!pid[w]) {
			FILE *to = fdopen(fd[1], "w");

			/* no job outlives the audit */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(fd[0]);
			answer_share(w, jobs, start);
			for (k = w; k < nasks && to; k += jobs)
				if (fwrite(&asks[k].ans, sizeof(asks[k].ans), 1,
					   to) != 1)
					_exit(2);
			_exit(to && !fclose(to) ? 0 : 2);
		}
		close(fd[1]);
		from[w] = fdopen(fd[0], "r");
		if (!from[w])
			close(fd[0]);	/* the job ends on EPIPE */
	}
	answer_share(0, jobs, start);
	for (w = 1; w < jobs; w++) {
		for (k = w; k < nasks && ok; k += jobs)
			ok = from[w] && fread(&asks[k].ans, sizeof(asks[k].ans),
					      1, from[w]) == 1;
		if (from[w])
			fclose(from[w]);
		ok = waitpid(pid[w], &status, 0) == pid[w] && ok &&
		     WIFEXITED(status) && !WEXITSTATUS(status);
	}
	if (!ok)
		fprintf(stderr, "kconfig-audit: a job of the first pass failed\n");
	return ok ? 0 : -1;
}

int main(int ac, char **av)
{
	const char *out = ".", *kconfig = NULL, *only = NULL, *known_path = NULL;
	bool own = false;
	int i, k, limit = -1, selects = 0, cands = 0, unsat = 0, carried = 0;
	int jobs = 1;
	int nknown = 0, vars, clauses, cone_max = 0;
	long cone_sum = 0;
	double start = now();
	struct symbol *sym;
	struct property *prop;
	struct gstr path;
	char result[32];

	for (i = 1; i < ac; i++) {
		if (!strcmp(av[i], "--out") && i + 1 < ac)
			out = av[++i];
		else if (!strcmp(av[i], "--limit") && i + 1 < ac)
			limit = atoi(av[++i]);
		else if (!strcmp(av[i], "--only") && i + 1 < ac)
			only = av[++i];
		else if (!strcmp(av[i], "--known") && i + 1 < ac)
			known_path = av[++i];
		else if (!strcmp(av[i], "--own"))
			own = true;
		else if (!strcmp(av[i], "--jobs") && i + 1 < ac)
			jobs = atoi(av[++i]);
		else if (av[i][0] != '-' && !kconfig)
			kconfig = av[i];
		else
			kconfig = NULL, i = ac + 1;
	}
	if (!kconfig || i > ac || jobs < 1 || jobs > MAX_JOBS) {
		fprintf(stderr,
			"usage: kconfig-audit [--out DIR] [--limit N] [--only SYMBOL] [--own] [--known FILE] [--jobs N] Kconfig\n");
		return 2;
	}
	if (known_path && read_known(known_path))
		return 2;
	conf_parse(kconfig);

	make_slots();
	for (i = 0; i < (int)var_table_size; i++)
		if (var_table[i].sym)
			var_table[i].hash = def_hash(var_table[i].sym);

	ps = picosat_init();
	{
		struct symbol **all = xcalloc(var_table_size, sizeof(*all));
		int n = 0;

		/* in the order of the symbol table, not of addresses: the
		 * same models, run after run
		 */
		for_each_symbol(i, sym)
			if (slot_of(sym))
				all[n++] = sym;
		encode(all, n);
		free(all);
	}
	vars = picosat_variables(ps);
	clauses = picosat_added_original_clauses(ps);
	fprintf(stderr, "kconfig-audit: %d variables, %d clauses, %d coarse comparisons, %.1f s\n",
		vars, clauses, coarse, now() - start);
	/* the tree itself must have a model, or every answer is "no" */
	if (picosat_sat(ps, -1) != PICOSAT_SATISFIABLE) {
		fprintf(stderr, "kconfig-audit: %s: the encoding has no model\n",
			kconfig);
		return 2;
	}

	collect(only, own, limit);
	carry_chains = !only && !own && limit < 0;
	selects = nasks;
	if (answer_all(jobs, start))
		return 2;
	/* the second pass: the lines, and a full model for each candidate */
	for (k = 0; k < nasks; k++) {
		struct symbol *target, *sym = asks[k].sym;
		struct property *prop = asks[k].prop;
		struct answer *ans = &asks[k].ans;
		struct tv term;
		int q, merged;

		target = prop->expr->left.sym;
		cone_len = ans->cone_len;
		if (ans->res == ASK_CARRIED) {
			carried++;
			unsat++;
			print_question(0, "carried", sym, prop);
			continue;
		}
		if (ans->res == ASK_KNOWN) {
			nknown++;
			print_question(ans->h, "known", sym, prop);
			continue;
		}
		coarse += ans->coarse;
		cone_sum += cone_len;
		if (cone_len > cone_max)
			cone_max = cone_len;
		if (ans->res == ASK_SAT) {
			/* a model of the whole tree, for conf */
			q = question(sym, prop, &term, &merged);
			picosat_assume(ps, q);
			if (picosat_sat(ps, -1) != PICOSAT_SATISFIABLE) {
				/* not the cone's answer: not to be kept */
				unsat++;
				print_question(ans->h, "unsat-tree", sym,
					       prop);
				continue;
			}
		}
		if (ans->res != ASK_SAT) {
			unsat++;
			print_question(ans->h, "unsat", sym, prop);
			continue;
		}
		cands++;
		path = str_new();
		str_printf(&path, "%s/cand-%d.config", out, cands);
		if (write_model(str_get(&path)))
			return 2;
		str_free(&path);
		snprintf(result, sizeof(result), "cand-%d", cands);
		print_question(ans->h, result, sym, prop);
		printf("cand %d %s %s %s %d %c ", cands, sym->name,
		       target->name, prop_file_name(prop), prop->lineno,
		       picosat_deref(ps, term.y) > 0 ? 'y' : 'm');
		picosat_assume(ps, merged);
		printf("%d %d\n", picosat_sat(ps, -1) == PICOSAT_SATISFIABLE,
		       expr_is_coarse(target->dir_dep.expr) ||
		       expr_is_coarse(prop->visible.expr));
		fflush(stdout);
	}
	printf("summary %d %d %d %d %d %d %.1f %d %d %d %ld\n", selects, cands,
	       unsat, vars, clauses, coarse, now() - start, carried,
	       nknown, cone_max, cone_sum);
	picosat_reset(ps);
	return cands ? 1 : 0;
}
