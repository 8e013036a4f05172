#!/usr/bin/env python3
"""gen-checktext.py KIB OUT.S OUT.BIN

Text for checktext (the program the stress tests exec): KIB KiB of
executable text, one page per function.  Function i starts its page with
"return i" and the rest of the page (bytes 16..4095) is a pattern that
depends on (i, word): word w of page i is splitmix64(i << 16 | w), little
endian.  checktext calls a few of the functions and compares their pages
with the pattern it computes itself, so text read from the wrong file
offset, a stale or a torn page is detected.  The pattern goes to OUT.BIN,
which OUT.S includes with .incbin.  Works for x86_64 and aarch64.
"""
import os
import struct
import sys

M64 = (1 << 64) - 1


def mix(x):
    x = (x + 0x9e3779b97f4a7c15) & M64
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & M64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & M64
    return x ^ (x >> 31)


kib, out_s, out_bin = int(sys.argv[1]), sys.argv[2], sys.argv[3]
n = kib // 4
with open(out_bin, 'wb') as f:
    for i in range(n):
        f.write(b'\0' * 16)
        f.write(b''.join(struct.pack('<Q', mix((i << 16) | w)) for w in range(2, 512)))
blob = os.path.abspath(out_bin)
out = ['\t.text']
for i in range(n):
    out += ['\t.p2align 12', f'\t.type ct_f{i}, %function', f'ct_f{i}:',
            '#if defined(__aarch64__)', f'\tmov w0, #{i}', '\tret', '#else',
            f'\tmov ${i}, %eax', '\tret', '#endif', '\t.balign 16, 0',
            f'\t.size ct_f{i}, .-ct_f{i}',
            f'\t.incbin "{blob}", {i * 4096 + 16}, 4080']
out += ['\t.p2align 12', '\t.section .rodata', '\t.p2align 3',
        '\t.globl ct_funcs', 'ct_funcs:']
out += [f'\t.quad ct_f{i}' for i in range(n)]
out += ['\t.globl ct_nfuncs', 'ct_nfuncs:', f'\t.quad {n}',
        '\t.section .note.GNU-stack,"",%progbits']
with open(out_s, 'w') as f:
    f.write('\n'.join(out) + '\n')
