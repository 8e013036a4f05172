#!/usr/bin/env python3
"""folio-table.py DISTFILE
   folio-table.py --compare A B DISTFILE

DISTFILE holds lines "<run> <label>: small=18.8 16K=75.6 ... pmd=0.0"
(the "# folio-dist" lines of the guest tests, prefixed by the run).

The first form prints the table of the seeds: the percentage of mapped
text by folio size, one column per run and label.

--compare checks that the "bigtext@boot" measurement of run A and of run B agree
within 1 percentage point in every folio size (the stock kernel against
"never"), and that B has none of the test binary's text in folios of 32K
or more, nor PMD-mapped (stock 6.12's read-around of text gives it 8K
and 16K folios on XFS, nothing larger); prints both, and exits 1 if not.
"""
import re
import sys

ORDER = ['small', '8K', '16K', '32K', '64K', '128K', '256K', '512K', '1024K',
         '2048K', 'unaligned', 'partial', 'pmd', 'cont']
HEADS = {'small': 'page', 'unaligned': 'unal.', 'partial': 'part.',
         'pmd': 'pmd', '1024K': '1M', '2048K': '2M'}


def parse(path):
    runs = []
    with open(path) as f:
        for line in f:
            m = re.match(r'(\S+) (\S+): (.*)', line.strip())
            if not m:
                continue
            vals = dict(kv.split('=', 1) for kv in m.group(3).split())
            vals.pop('resident', None)
            runs.append((f'{m.group(1)}/{m.group(2)}',
                         {k: float(v) for k, v in vals.items()}))
    return runs


def table(runs):
    """One row per measurement, one column per folio size: % of the text."""
    keys = [k for k in ORDER if any(v.get(k, 0.0) >= 0.05 for _, v in runs)]
    heads = [HEADS.get(k, k) for k in keys]
    width = max([8] + [len(n) for n, _ in runs])
    out = ['boot/measurement'.ljust(width) + ' | ' +
           ' | '.join(h.rjust(6) for h in heads)]
    out.append('-' * len(out[0]))
    for name, v in runs:
        out.append(name.ljust(width) + ' | ' +
                   ' | '.join(f'{v.get(k, 0.0):6.1f}' for k in keys))
    out.append('(page: not in a large folio; unal.: large folios at unaligned '
               'addresses; part.: partially mapped; pmd: PMD-mapped; '
               'cont: in aligned contpte-size blocks of one folio)')
    return '\n'.join(out)


def main(argv):
    if argv[1:2] == ['--compare']:
        a, b, path = argv[2:5]
        runs = dict(parse(path))
        ra, rb = runs.get(f'{a}/bigtext@boot'), runs.get(f'{b}/bigtext@boot')
        if ra is None or rb is None:
            print(f'missing measurement for {a} or {b}')
            return 1
        print(table([(a, ra), (b, rb)]))
        sizes = [k for k in ORDER if k not in ('small', 'unaligned', 'partial', 'cont')]
        bad = [k for k in set(ra) & set(ORDER) | set(rb) & set(ORDER)
               if abs(ra.get(k, 0.0) - rb.get(k, 0.0)) > 1.0]
        large = [f'{k}={rb[k]}' for k in sizes[sizes.index('32K'):] + ['unaligned']
                 if rb.get(k, 0.0) > 0.0]
        if bad:
            print('differ by more than 1 point:', ', '.join(sorted(bad)))
        if large:
            print(f'{b} has text in folios of 32K or more:', ', '.join(large))
        return 1 if bad or large else 0
    print(table(parse(argv[1])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
