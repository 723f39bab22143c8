// SPDX-License-Identifier: GPL-2.0
/*
 * The tree's scripts/kconfig/util.c, and what kconfig-audit needs of it
 * that not every version exports: the file that sources a Kconfig file.
 * 6.1 keeps the files in a global list with their parents (kconfig-audit.c
 * reads it), 7.x in a hash table private to util.c with their parents,
 * and 6.11/6.12 in that table without them (tools/audit/build defines
 * KCONFIG_FILE_NO_PARENT): there file_lookup() is wrapped to note the
 * file being read (cur_filename) when another one is sourced.
 * tools/audit/build compiles this file in place of util.c, for any tree.
 */

#ifdef KCONFIG_FILE_NO_PARENT
#define file_lookup util_file_lookup
#endif
#include "util.c"

#ifdef KCONFIG_FILE_NO_PARENT
#undef file_lookup

struct file_parent {
	struct hlist_node node;
	const char *name, *parent;
};

static HASHTABLE_DEFINE(parent_hashtable, 1U << 11);

static struct file_parent *find_parent(const char *name)
{
	struct file_parent *p;

	hash_for_each_possible(parent_hashtable, p, node, hash_str(name))
		if (!strcmp(name, p->name))
			return p;
	return NULL;
}

/* lexer.l's, declared in internal.h, which util.c does not include */
extern const char *cur_filename;
const char *file_lookup(const char *name);

/* Called by the lexer before cur_filename becomes @name */
const char *file_lookup(const char *name)
{
	const char *parent = cur_filename;
	struct file_parent *p;

	name = util_file_lookup(name);
	if (!find_parent(name)) {
		p = xmalloc(sizeof(*p));
		p->name = name;
		p->parent = parent;
		hash_add(parent_hashtable, &p->node, hash_str(name));
	}
	return name;
}

const char *audit_file_parent(const char *name)
{
	struct file_parent *p = find_parent(name);

	return p ? p->parent : NULL;
}
#elif defined(KCONFIG_CHOICE_MENUS)
/* The file that sources @name, or NULL for the top-level Kconfig */
const char *audit_file_parent(const char *name)
{
	struct file *file;

	hash_for_each_possible(file_hashtable, file, node, hash_str(name))
		if (!strcmp(name, file->name))
			return file->parent.name;
	return NULL;
}
#endif
