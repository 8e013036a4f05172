#!/usr/bin/env python3
"""compare-thpmaps.py THPMAPS_OUT OURS_OUT

Check that "exec_folio_ctl report" gives the same numbers as the kernel's
tools/mm/thpmaps (run with --inc-empty), in both directions.  Mappings:
every mapping of ours must be in thpmaps, and every executable file
mapping thpmaps shows (x permission, a path starting with '/') must be
in ours.  Counters, for every mapping both show: every file-* counter
thpmaps prints must have the same kB value in ours (a counter we leave
out because it is 0 counts as 0), and every counter of ours must be in
thpmaps with the same value, except those thpmaps cannot show:
file-resident, file-base-page and folios of two pages (8kB with 4K
pages; thpmaps starts at four pages).
Prints "N mappings, M counters compared" first; exits 1 on a mismatch.
"""
import re
import sys

# "PID: START-END PERMS OFFSET [DEV INODE] [PATH]" (thpmaps has DEV and INODE).
HEAD = re.compile(r'^\s*(\d+): ([0-9a-f]+)-([0-9a-f]+) (\S{4}) [0-9a-f]+(.*)$')
STAT = re.compile(r'^\s*(file-[\w-]+):\s+(\d+) kB')


def parse(path):
    vmas, cur = {}, None
    with open(path) as f:
        for line in f:
            if ': rollup' in line:
                cur = None      # our rollups are no mapping
                continue
            m = HEAD.match(line)
            if m:
                cur = {}
                rest = m.group(5)
                obj = rest[rest.index(' /') + 1:] if ' /' in rest else ''
                vmas[(int(m.group(2), 16), int(m.group(3), 16))] = (m.group(4), obj, cur)
                continue
            m = STAT.match(line)
            if m and cur is not None:
                cur[m.group(1)] = int(m.group(2))
    return vmas


def thpmaps_cannot_show(name, page_kb):
    """Counters of ours that thpmaps has no line for."""
    if name in ('file-base-page', 'file-resident'):
        return True
    m = re.search(r'-(\d+)kB$', name)
    return bool(m) and 'thp-pte' in name and int(m.group(1)) == 2 * page_kb


def main():
    thp, ours = parse(sys.argv[1]), parse(sys.argv[2])
    page_kb = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    compared = counters = 0
    bad = []
    for key, (perms, path, _) in thp.items():
        if perms[2] == 'x' and path.startswith('/') and key not in ours:
            bad.append(f'{key[0]:x}-{key[1]:x} {perms} {path}: text in thpmaps, not in ours')
    for key, (_, _, ostats) in ours.items():
        if key not in thp:
            bad.append(f'{key[0]:x}-{key[1]:x}: not in thpmaps output')
            continue
        compared += 1
        for name, kb in thp[key][2].items():
            counters += 1
            if ostats.get(name, 0) != kb:
                bad.append(f'{key[0]:x}-{key[1]:x} {name}: thpmaps {kb} kB, '
                           f'ours {ostats.get(name, 0)} kB')
        for name, kb in ostats.items():
            if name in thp[key][2] or thpmaps_cannot_show(name, page_kb):
                continue
            counters += 1
            bad.append(f'{key[0]:x}-{key[1]:x} {name}: ours {kb} kB, not in thpmaps')
    print(f'{compared} mappings, {counters} counters compared')
    for b in bad:
        print(b)
    return 1 if bad or not compared else 0


if __name__ == '__main__':
    sys.exit(main())
