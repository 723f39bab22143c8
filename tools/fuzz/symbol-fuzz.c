// SPDX-License-Identifier: GPL-2.0
/*
 * symbol.c for the fuzz harness, with a way to forget the unmet selects
 * recorded so far, so that each input is reported as in a fresh run.
 */
#include "symbol.c"

void fuzz_reset_unmet_deps(void)
{
	struct unmet_dep *ud, *tmp;

	list_for_each_entry_safe(ud, tmp, &unmet_deps, node) {
		list_del(&ud->node);
		free(ud);
	}
	sym_warnings = 0;
}
