/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TEXT_KIB KiB of executable text for exec_folio_test's helpers: one
 * function at the start of each 4K page from exec_folio_text, each
 * returning at once, so that calling them all faults every page in.
 * The same source assembles for x86_64 and arm64.
 */
#ifndef TEXT_KIB
#define TEXT_KIB 2560
#endif

	.text
	.p2align 12
	.globl	exec_folio_text
	.type	exec_folio_text, %function
exec_folio_text:
	.rept	TEXT_KIB / 4
	.p2align 12
	ret
	.endr
	.p2align 12
	.size	exec_folio_text, . - exec_folio_text

	.section .rodata
	.p2align 3
	.globl	exec_folio_text_pages
exec_folio_text_pages:
	.quad	TEXT_KIB / 4

	.section .note.GNU-stack, "", %progbits
