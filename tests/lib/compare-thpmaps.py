#!/usr/bin/env python3
"""compare-thpmaps.py THPMAPS_OUT OURS_OUT

Check that "exec_folio_ctl report" gives the same numbers as the kernel's
tools/mm/thpmaps (run with --inc-empty) for every executable mapping
both show: every file-* counter thpmaps prints must have the same kB
value in ours (a counter we leave out because it is 0 counts as 0).
Prints "N mappings, M counters compared" first; exits 1 on a mismatch.
"""
import re
import sys

HEAD = re.compile(r'^\s*(\d+): ([0-9a-f]+)-([0-9a-f]+) (\S{4})')
STAT = re.compile(r'^\s*(file-[\w-]+):\s+(\d+) kB')


def parse(path):
    vmas, cur = {}, None
    with open(path) as f:
        for line in f:
            m = HEAD.match(line)
            if m:
                cur = {}
                vmas[(int(m.group(2), 16), int(m.group(3), 16))] = (m.group(4), cur)
                continue
            m = STAT.match(line)
            if m and cur is not None:
                cur[m.group(1)] = int(m.group(2))
    return vmas


def main():
    thp, ours = parse(sys.argv[1]), parse(sys.argv[2])
    compared = counters = 0
    bad = []
    for key, (perms, ostats) in ours.items():
        if key not in thp:
            bad.append(f'{key[0]:x}-{key[1]:x}: not in thpmaps output')
            continue
        compared += 1
        for name, kb in thp[key][1].items():
            counters += 1
            if ostats.get(name, 0) != kb:
                bad.append(f'{key[0]:x}-{key[1]:x} {name}: thpmaps {kb} kB, '
                           f'ours {ostats.get(name, 0)} kB')
    print(f'{compared} mappings, {counters} counters compared')
    for b in bad:
        print(b)
    return 1 if bad or not compared else 0


if __name__ == '__main__':
    sys.exit(main())
