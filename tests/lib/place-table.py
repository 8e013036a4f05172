#!/usr/bin/env python3
"""place-table.py LOG...: markdown tables of text placement and ASLR.

Reads the "# place ..." and "# aslr ..." lines that tests/guest/place.sh
prints in the guest console logs, and the "# relink ..." lines of
tests/host/relink.sh, and prints three tables: where the text of a PIE,
ld.so and libc landed and the share of the possible reached, per
architecture and policy; the randomness left in their load addresses;
what relinking a library with a larger max-page-size does on its own.
"""
import re
import sys

place, aslr, relink = [], [], []
for path in sys.argv[1:]:
    guest = re.sub(r'.*guest-(.*)\.log$', r'\1', path)
    with open(path, errors='replace') as f:
        for line in f:
            line = line.strip()
            m = re.search(r'# place (\S+)/(\S+)@(\S+) size=(\d+) start=(\S+) offset=(\S+) '
                          r'possible=(\S+)% reached=(\S+?)%', line)
            if m:
                place.append((guest,) + m.groups())
                continue
            m = re.search(r'# aslr (\S+) page=(\S+) policy=(\S+?)( --no-randomize)? (\w+): '
                          r'runs=(\d+) distinct=(\d+) grain=(\S+) bits=(\d+)', line)
            if m and not m.group(4):
                aslr.append((guest,) + m.group(1, 2, 3, 5, 6, 7, 8, 9))
                continue
            m = re.search(r'# relink max-page-size=(\S+): p_align (\S+), file (\S+), runs (\d+), '
                          r'distinct (\d+), text congruent mod 64K (\d+), mod 2M (\d+)', line)
            if m:
                relink.append(m.groups())


def size(n):
    n = int(n)
    return f'{n >> 20}M' if n >= 1 << 20 else f'{n >> 10}K'


if place:
    print('| guest | file | policy | placed for | text VMA start | file offset | congruent | '
          'possible (whole blocks) | reached |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for g, arch, f, pol, sz, start, off, pos, got in place:
        cong = 'yes' if (int(start, 16) - int(off, 16)) % int(sz) == 0 else 'NO'
        got = got if got == 'n/a' else got + '%'
        print(f'| {g} | {f} | {pol} | {size(sz)} | {start} | {off} | {cong} | {pos}% | {got} |')
    print()
if aslr:
    print('| guest | page | policy | object | execs | distinct | grain | bits left |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- |')
    for g, arch, page, pol, obj, runs, distinct, grain, bits in aslr:
        print(f'| {g} | {page} | {pol} | {obj} | {runs} | {distinct} | {grain} | {bits} |')
    print()
if relink:
    print('| library linked with | p_align | file size | runs | distinct addresses | '
          'text 64K-congruent | 2M-congruent |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    for v, align, fsize, runs, distinct, c64, c2m in relink:
        print(f'| -z max-page-size={v} | {align} | {fsize} | {runs} | {distinct} | '
              f'{c64}/{runs} | {c2m}/{runs} |')
    print()
if not (place or aslr or relink):
    sys.exit('place-table: no "# place", "# aslr" or "# relink" lines')
