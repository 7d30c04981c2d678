// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --path: the BeagleBone post's toggle rates (data/baseline-bbb-gpio-toggle-post.csv),
 * embedded as they are, NUL-terminated. The Makefile makes this object depend on the CSV.
 */
__asm__(".section .rodata\n"
	".global bbb_post_csv\n"
	".type bbb_post_csv, %object\n"
	"bbb_post_csv:\n"
	".incbin \"data/baseline-bbb-gpio-toggle-post.csv\"\n"
	".byte 0\n"
	".size bbb_post_csv, . - bbb_post_csv\n"
	".previous\n");
