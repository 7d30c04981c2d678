// SPDX-License-Identifier: GPL-2.0
/* gpiolat: the GPIO hooks' table (gpio_hooks.h) and its listing. No libbpf: host/gpio_hooks.c
 * links it too. */
#include "providers/gpio_hooks.h"

#define GPIO_HOOK_INFO(ID, tok, nm, fam, sec, kc, dsc, tk, lbl, hlp, bt) \
	[GPIO_HOOK_##ID] = { .name = nm,                                 \
			     .family = fam,                              \
			     .hook = sec,                                \
			     .kconfig = kc,                              \
			     .talk = tk,                                 \
			     .label = lbl,                               \
			     .help = hlp,                                \
			     .prog = GPIO_HOOK_PROG(tok),                \
			     .empty_prog = GPIO_HOOK_EMPTY_PROG(tok),    \
			     .floor_prog = GPIO_HOOK_FLOOR_PROG(tok),    \
			     .row = GPIO_HOOK_ROW(nm),                   \
			     .empty_row = GPIO_HOOK_EMPTY_ROW(nm),       \
			     .floor_row = GPIO_HOOK_FLOOR_ROW(nm),       \
			     .plain_row = GPIO_HOOK_PLAIN_ROW(tok),      \
			     .desc = dsc,                                \
			     .btf = bt },
const struct gpio_hook_info gpio_hooks[GPIO_HOOK_MAX] = { GPIO_HOOKS(GPIO_HOOK_INFO) };

void gpio_hooks_print(FILE *f, bool json)
{
	const struct gpio_hook_info *h;
	int i;

	if (!json) {
		for (i = 0; i < GPIO_HOOK_MAX; i++)
			fprintf(f, "%-12s %-20s %s\n", gpio_hooks[i].name, gpio_hooks[i].family,
				gpio_hooks[i].hook);
		return;
	}
	/* one hook a line: POSIX sh reads the names with sed (tests/target/lib.sh) */
	fprintf(f, "{\"hooks\": [\n");
	for (i = 0; i < GPIO_HOOK_MAX; i++) {
		h = &gpio_hooks[i];
		fprintf(f,
			"  {\"name\": \"%s\", \"family\": \"%s\", \"section\": \"%s\", "
			"\"kconfig\": \"%s\", \"needs_gpio_desc\": %s, \"needs_btf\": %s, "
			"\"talk\": %s%s%s, "
			"\"label\": \"%s\", \"help\": \"%s\", \"default\": %s, "
			"\"programs\": {\"gpiolat\": \"%s\", \"empty\": \"%s\", \"floor\": \"%s\"}, "
			"\"rows\": {\"gpiolat\": \"%s\", \"empty\": \"%s\", \"floor\": \"%s\", "
			"\"plain\": \"%s\"}}%s\n",
			h->name, h->family, h->hook, h->kconfig, h->desc ? "true" : "false",
			h->btf ? "true" : "false", h->talk ? "\"" : "", h->talk ? h->talk : "null",
			h->talk ? "\"" : "", h->label, h->help, i == 0 ? "true" : "false", h->prog,
			h->empty_prog, h->floor_prog, h->row, h->empty_row, h->floor_row,
			h->plain_row, i + 1 < GPIO_HOOK_MAX ? "," : "");
	}
	fprintf(f, "]}\n");
}
