// SPDX-License-Identifier: GPL-2.0
/*
 * The search-tree helpers that Debian 13's static libelf (elfutils 0.192, libelf-dev 0.192-4)
 * calls but does not contain: its libelf.a leaves eu_search_tree_init, eu_search_tree_fini,
 * eu_tsearch and eu_tdelete undefined (elfutils bug 32293: lib/eu-search.o is linked into
 * libelf.so only), so a static gpiolat (the ARM targets', make dist's) does not link there.
 *
 * Only in a static build (GPIOLAT_STATIC, the Makefile's STATIC=1), and weak: a libelf.a that
 * carries them (Debian 12's has no such calls; a fixed elfutils has its own) wins over these.
 * Their tree is elfutils' search_tree, whose first member is the tsearch(3) root; libelf.a
 * without locks (Debian's: it references no pthread_rwlock_*) has nothing after it that these
 * must touch. Each is the plain tsearch(3) call the name says.
 */
#ifdef GPIOLAT_STATIC
#define _GNU_SOURCE
#include <search.h>
#include <stddef.h>

struct eu_search_tree {
	void *root;
};

typedef int (*eu_compare)(const void *, const void *);

__attribute__((weak)) void eu_search_tree_init(struct eu_search_tree *tree)
{
	tree->root = NULL;
}

__attribute__((weak)) void eu_search_tree_fini(struct eu_search_tree *tree,
					       void (*free_node)(void *))
{
	tdestroy(tree->root, free_node);
	tree->root = NULL;
}

__attribute__((weak)) void *eu_tsearch(const void *key, struct eu_search_tree *tree,
				       eu_compare compare)
{
	return tsearch(key, &tree->root, compare);
}

__attribute__((weak)) void *eu_tfind(const void *key, struct eu_search_tree *tree,
				     eu_compare compare)
{
	return tfind(key, &tree->root, compare);
}

__attribute__((weak)) void *eu_tdelete(const void *key, struct eu_search_tree *tree,
				       eu_compare compare)
{
	return tdelete(key, &tree->root, compare);
}
#else
/* a translation unit must not be empty (-Wpedantic); nothing is needed in a dynamic build */
typedef int libelf_search_unused;
#endif
