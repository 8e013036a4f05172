#!/usr/bin/env python3
"""gen-text.py KIB > text.S

Emit an assembly file with KIB KiB of executable text: one function per
4K page, each returning at once, and a table of them (text_funcs,
text_nfuncs) in .rodata.  Calling every function faults in every page of
the text, so the folio sizes it ends up in can be measured.  Works for
x86_64 and aarch64 (the only difference is the return instruction).
"""
import sys

kib = int(sys.argv[1])
n = kib // 4
out = ['\t.text']
for i in range(n):
    out += ['\t.p2align 12', f'\t.type text_f{i}, %function', f'text_f{i}:',
            '#if defined(__aarch64__)', '\tret', '#else', '\tret', '#endif',
            f'\t.size text_f{i}, .-text_f{i}']
out += ['\t.p2align 12', '\t.section .rodata', '\t.p2align 3',
        '\t.globl text_funcs', 'text_funcs:']
out += [f'\t.quad text_f{i}' for i in range(n)]
out += ['\t.globl text_nfuncs', 'text_nfuncs:', f'\t.quad {n}',
        '\t.section .note.GNU-stack,"",%progbits']
print('\n'.join(out))
