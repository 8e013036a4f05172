#!/usr/bin/env python3
"""field-table.py [--out DIR] [--png] [--all-files] LOG...

The "# field" lines of tests/guest/field.sh (in guest console logs, or
any file: other lines are ignored) as markdown tables, per architecture
and program: the process under each policy, then each mapped file
(program, ld.so, each library) under each policy, then the folio sizes
of each file's text.  Without --out the markdown goes to stdout; with
--out DIR it is written to DIR/field-<arch>.md, and --png adds
DIR/field-<arch>-<program>.png: stacked bars of folio sizes, per file and
policy (matplotlib: python3-matplotlib; without it the plots are skipped
with a message, not an error).

Libraries with less than 256 KiB of text are summed in one row ("N small
libraries") unless --all-files.

The lines, as field.sh prints them (sizes in KiB):

  # field <arch>/<prog>@<policy> - kind=process minflt= majflt= touched_kb=
        touch_minflt= touch_majflt= ready_s= alloc= [exit_status= run_ms=]
  # field <arch>/<prog>@<policy> <file> kind=exe|ld.so|lib text_kb= start= off=
        va_mod64K= off_mod64K= cong64K= va_mod2M= off_mod2M= cong2M=
        target= tgt_possible_kb= tgt_ideal_kb= tgt_kb= pmd_size= pmd_span_kb=
        pmd_ideal_kb= pmd_kb= cont_kb= rss_run_kb= rss_kb= cache_run_kb=
        cache_kb= file_kb= small_kb= partial_kb= f<size>= a<size>= ...

minflt/majflt: the program's own faults until it settled (asleep or
stopped); touch_*: the faults of reading the rest of its text in through
/proc/PID/mem; alloc: large text folios the policy allocated
(exec_folio_stats/alloc); exit_status, run_ms: a program that ran to
completion, measured held at its exit (field_probe exitstop), its exit
status and run time.  text_kb: the executable VMA; cong64K/cong2M:
the VMA start and its file offset agree modulo 64K / 2M; target: the
folio size the policy aims at for that VMA (mm/exec_folio.c's rule);
tgt_kb: text in aligned folios of the target size, PTE- or PMD-mapped;
tgt_possible_kb: the whole target-size blocks of the VMA that can be
such folios where the VMA is placed (none unless congruent), and
tgt_ideal_kb with an ideal placement; pmd_span_kb / pmd_ideal_kb: the
same for PMD-size blocks, and pmd_kb the text PMD-mapped; rss_run_kb,
cache_run_kb: text RSS and page cache held by the file once the program
settled, rss_kb/cache_kb after the whole text was read in; f<size> /
a<size>: text in folios of that size, all / aligned; small_kb: text in
base pages; partial_kb: in large folios only partly mapped.  Read
amplification: cache_run_kb against the same file's under never.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

LINE = re.compile(r'# field (\S+)/(\S+)@(\S+) (\S+) (.*)$')
TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
POLICIES = ['stock', 'never', 'arch', 'auto', '16K', '32K', '64K', '128K', '256K',
            '512K', '1M', '2M']
SMALL_LIB_KB = 256


def size_kb(label):
    return int(float(label[:-1]) * (1024 if label.endswith('M') else 1))


def parse(paths):
    """{arch: {prog: {policy: {'process': {...}, 'files': {file: {...}}}}}},
    the last measurement of each winning."""
    data = collections.defaultdict(lambda: collections.defaultdict(dict))
    for path in paths:
        with open(path, errors='replace') as f:
            for raw in f:
                m = LINE.search(TS.sub('', raw.rstrip('\r\n')))
                if not m:
                    continue
                arch, prog, pol, fname, rest = m.groups()
                vals = {}
                for kv in rest.split():
                    if '=' in kv:
                        k, v = kv.split('=', 1)
                        vals[k] = v
                run = data[arch][prog].setdefault(pol, {'process': {}, 'files': {}})
                if fname == '-':
                    run['process'] = vals
                else:
                    run['files'][fname] = vals
    return data


def num(v, key):
    try:
        return float(v.get(key, 0))
    except ValueError:
        return 0.0


def pct(a, b):
    return f'{100.0 * a / b:.1f}%' if b else '-'


def policy_order(pols):
    return sorted(pols, key=lambda p: POLICIES.index(p) if p in POLICIES else 99)


def file_order(runs):
    """Files of a program, the program first, then ld.so, then libraries
    by text size; and those summed as small libraries."""
    info = {}
    for run in runs.values():
        for f, v in run['files'].items():
            info.setdefault(f, (v.get('kind', 'lib'), num(v, 'text_kb')))
    rank = {'exe': 0, 'ld.so': 1, 'lib': 2}
    files = sorted(info, key=lambda f: (rank.get(info[f][0], 2), -info[f][1], f))
    big = [f for f in files if info[f][0] != 'lib' or info[f][1] >= SMALL_LIB_KB
           or f.endswith('/libc.so.6')]
    return big, [f for f in files if f not in big]


def summed(files, vals_of):
    """One row for several files: their kB figures added up."""
    out = collections.Counter()
    for f in files:
        v = vals_of(f)
        if not v:
            continue
        for k, x in v.items():
            if k.endswith('_kb') or re.match(r'[fa]\d', k):
                out[k] += num(v, k)
    out = {k: str(int(x)) for k, x in out.items()}
    out['kind'] = 'lib'
    out['target'] = '(per library)'
    return out


def name(f):
    return os.path.basename(f)


def cong(v, size):
    if f'cong{size}' not in v:
        return '-'
    return 'yes' if v[f'cong{size}'] == '1' else f"no ({v[f'va_mod{size}']} / {v[f'off_mod{size}']})"


def process_table(prog, runs, pols):
    never = runs.get('never') or runs.get('stock')
    never_cache = sum(num(v, 'cache_run_kb') for v in never['files'].values()) if never else 0
    # A program that runs to completion, measured held at its exit.
    ran = any('run_ms' in runs[pol]['process'] for pol in pols)
    out = [f'| {prog}: policy | major / minor faults to start | faults to read the rest '
           f'| text RSS at start | page cache at start (all its files) | vs never '
           f'| large folios allocated | ' + ('ran for (to its exit) |' if ran else 'settled after |'),
           '| --- | --- | --- | --- | --- | --- | --- | --- |']
    for pol in pols:
        p, files = runs[pol]['process'], runs[pol]['files']
        if ran:
            took = (f"{int(p['run_ms']) / 1000:.2f} s (exit {p.get('exit_status', '?')})"
                    if 'run_ms' in p else f"did not exit: settled after {p.get('ready_s', '?')} s")
        else:
            took = f"{p.get('ready_s', '?')} s"
        rss = sum(num(v, 'rss_run_kb') for v in files.values())
        cache = sum(num(v, 'cache_run_kb') for v in files.values())
        amp = f'{cache / never_cache:.2f}x' if never_cache else '-'
        out.append(f"| {pol} | {p.get('majflt', '?')} / {p.get('minflt', '?')} "
                   f"| {p.get('touch_majflt', '?')} / {p.get('touch_minflt', '?')} "
                   f"| {rss / 1024:.1f} MiB | {cache / 1024:.1f} MiB | {amp} "
                   f"| {p.get('alloc', '-')} | {took} |")
    return out


def file_table(prog, runs, pols, files, rest):
    out = [f'| {prog}: file | policy | text | VA ≡ offset mod 64K | mod 2M | target folio '
           f'| text in aligned target-size folios | possible where placed | possible, ideal placement '
           f'| PMD-mapped / PMD-mappable span | ideal span | text RSS at start | page cache at start | vs never |',
           '| --- | --- | ---: | --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |']
    rows = [(name(f), lambda pol, f=f: runs[pol]['files'].get(f)) for f in files]
    if rest:
        rows.append((f'{len(rest)} small librar{"y" if len(rest) == 1 else "ies"}',
                     lambda pol: summed(rest, lambda f: runs[pol]['files'].get(f))))
    never = 'never' if 'never' in runs else 'stock' if 'stock' in runs else None
    for label, get in rows:
        for pol in pols:
            v = get(pol)
            if not v:
                continue
            text = num(v, 'text_kb')
            span = num(v, 'pmd_span_kb')
            pmd = f"{pct(num(v, 'pmd_kb'), span)} of {span / 1024:.0f} MiB" if span else \
                f"{num(v, 'pmd_kb') / 1024:.0f} MiB / -" if num(v, 'pmd_kb') else '-'
            base = get(never) if never else None
            nc = num(base, 'cache_run_kb') if base else 0
            amp = f"{num(v, 'cache_run_kb') / nc:.2f}x" if nc else '-'
            tgt = v.get('target', '-')
            have = pct(num(v, 'tgt_kb'), text) if tgt not in ('none', '(per library)') else '-'
            pos = pct(num(v, 'tgt_possible_kb'), text) if have != '-' else '-'
            ideal = pct(num(v, 'tgt_ideal_kb'), text) if have != '-' else '-'
            out.append(f"| {label} | {pol} | {text:.0f}K | {cong(v, '64K')} | {cong(v, '2M')} "
                       f"| {tgt} | {have} | {pos} | {ideal} | {pmd} "
                       f"| {num(v, 'pmd_ideal_kb') / 1024:.0f} MiB | {num(v, 'rss_run_kb'):.0f}K "
                       f"| {num(v, 'cache_run_kb'):.0f}K | {amp} |")
    return out


def sizes_of(v):
    return {size_kb(k[1:]) for k in v if re.match(r'f\d+(\.\d+)?[KM]$', k)}


def label_kb(kb):
    return f'{kb // 1024}M' if kb >= 1024 and kb % 1024 == 0 else f'{kb}K'


def dist(v, pmd_kb):
    """% of the text by folio size, {'page': .., '16K': .., 'PMD': ..,
    'partial': ..}, summing to about 100 (a size: its folios mapped by
    PTEs, aligned or not; PMD: PMD-mapped); and the unaligned part of
    each size, {'16K': .., ...}."""
    text = num(v, 'text_kb') or 1
    d = {'page': num(v, 'small_kb'), 'partial': num(v, 'partial_kb')}
    unal = {}
    for kb in sorted(sizes_of(v)):
        lab = label_kb(kb)
        allk, al = num(v, 'f' + lab), num(v, 'a' + lab)
        if kb == pmd_kb:
            d['PMD'] = num(v, 'pmd_kb')
            allk -= num(v, 'pmd_kb')
            al -= num(v, 'pmd_kb')
        d[lab] = allk
        unal[lab] = allk - al
    return ({k: 100.0 * x / text for k, x in d.items()},
            {k: 100.0 * x / text for k, x in unal.items()})


def size_columns(dists):
    keys = {k for d, _ in dists for k, x in d.items() if x >= 0.05}
    sizes = sorted(size_kb(k) for k in keys if re.match(r'\d', k))
    order = ['page'] + [label_kb(k) for k in sizes] + ['PMD', 'partial']
    return [k for k in order if k in keys]


def size_table(prog, runs, pols, files, pmd_kb):
    rows = []
    for f in files:
        for pol in pols:
            v = runs[pol]['files'].get(f)
            if v:
                rows.append((f'{name(f)}@{pol}', dist(v, pmd_kb)))
    cols = size_columns([d for _, d in rows])
    out = [f'| {prog}: file@policy | ' + ' | '.join(cols) + ' | of which unaligned |',
           '| --- |' + ' ---: |' * len(cols) + ' --- |']
    for lab, (d, unal) in rows:
        un = ', '.join(f'{k} {x:.1f}' for k, x in unal.items() if x >= 0.05) or '-'
        out.append(f'| {lab} | ' + ' | '.join(f"{d.get(k, 0.0):.1f}" for k in cols)
                   + f' | {un} |')
    return out


def headline(arch, progs):
    out = [f'| {arch}: program@policy | program: text in aligned target-size folios '
           f'(possible where placed / ideal) | program: PMD-mapped of PMD span | ld.so | libc '
           f'| largest other library | page cache at start vs never | major faults |',
           '| --- | --- | --- | --- | --- | --- | --- | --- |']
    for prog in sorted(progs):
        runs = progs[prog]
        never = runs.get('never') or runs.get('stock')
        nc = sum(num(v, 'cache_run_kb') for v in never['files'].values()) if never else 0
        for pol in policy_order(runs):
            files = runs[pol]['files']

            def of(kind, suffix=None):
                for f, v in files.items():
                    if v.get('kind') == kind and (not suffix or f.endswith(suffix)):
                        return v
                return None

            def tgt(v):
                if not v:
                    return '-'
                if v.get('target') in (None, 'none'):
                    return 'no target'
                t = num(v, 'text_kb')
                return (f"{pct(num(v, 'tgt_kb'), t)} at {v['target']} "
                        f"({pct(num(v, 'tgt_possible_kb'), t)} / {pct(num(v, 'tgt_ideal_kb'), t)})")
            exe = of('exe')
            span = num(exe, 'pmd_span_kb') if exe else 0
            pmd = pct(num(exe, 'pmd_kb'), span) if span else \
                (f"no span ({num(exe, 'pmd_ideal_kb') / 1024:.0f} MiB ideally)" if exe else '-')
            cache = sum(num(v, 'cache_run_kb') for v in files.values())
            amp = f'{cache / nc:.2f}x' if nc else '-'
            libs = sorted((f for f, v in files.items() if v.get('kind') == 'lib'
                           and not f.endswith('/libc.so.6')),
                          key=lambda f: -num(files[f], 'text_kb'))
            big = f'{name(libs[0])}: {tgt(files[libs[0]])}' if libs else '-'
            out.append(f"| {prog}@{pol} | {tgt(exe)} | {pmd} | {tgt(of('ld.so'))} "
                       f"| {tgt(of('lib', '/libc.so.6'))} | {big} | {amp} "
                       f"| {runs[pol]['process'].get('majflt', '?')} |")
    return out


def markdown(arch, progs, all_files):
    out = [f'## {arch}', '']
    out += headline(arch, progs) + ['']
    for prog in sorted(progs):
        runs = progs[prog]
        pols = policy_order(runs)
        files, rest = file_order(runs)
        if all_files:
            files, rest = files + rest, []
        pmd_kb = 0
        for run in runs.values():
            for v in run['files'].values():
                pmd_kb = size_kb(v.get('pmd_size', '2M'))
        out += [f'### {arch}: {prog}', '']
        out += process_table(prog, runs, pols) + ['']
        out += file_table(prog, runs, pols, files, rest) + ['']
        out += ['Folio sizes, % of each file\'s text (page: base pages; a size: folios of '
                'that size mapped by PTEs, aligned or not, the unaligned part in the last '
                'column; PMD: PMD-mapped; partial: large folios only partly mapped):', '']
        out += size_table(prog, runs, pols, files, pmd_kb) + ['']
    return out


COLORS = {'page': '#cccccc', 'partial': '#555555', 'PMD': '#d62728'}


def plot(arch, progs, outdir, all_files):
    """One PNG per program: a panel per mapped file, a stacked bar per
    policy of the folio sizes of its text (hatched: mapped at addresses
    not aligned to the folio size)."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        return None
    written = []
    for prog in sorted(progs):
        runs = progs[prog]
        pols = policy_order(runs)
        files, rest = file_order(runs)
        if all_files:
            files = files + rest
        pmd_kb = 2048
        for run in runs.values():
            for v in run['files'].values():
                pmd_kb = size_kb(v.get('pmd_size', '2M'))
        panels = []
        for f in files:
            bars = [(pol, dist(runs[pol]['files'][f], pmd_kb)) for pol in pols
                    if f in runs[pol]['files']]
            if bars:
                panels.append((f, bars))
        if not panels:
            continue
        cols = size_columns([d for _, bars in panels for _, d in bars])
        sizes = [k for k in cols if k not in COLORS]
        cmap = plt.get_cmap('viridis')
        colors = dict(COLORS)
        for i, k in enumerate(sizes):
            colors[k] = cmap(0.95 - 0.85 * i / max(1, len(sizes) - 1))
        ncol = min(4, len(panels))
        nrow = (len(panels) + ncol - 1) // ncol
        fig, axes = plt.subplots(nrow, ncol, figsize=(3.1 * ncol + 1.4, 2.5 * nrow + 0.6),
                                 squeeze=False, sharey=True)
        for ax in axes.flat[len(panels):]:
            ax.axis('off')
        for ax, (f, bars) in zip(axes.flat, panels):
            xs = range(len(bars))
            bottom = [0.0] * len(bars)
            for k in cols:
                total = [d.get(k, 0.0) for _, (d, _) in bars]
                unal = [min(u.get(k, 0.0), t) for (_, (_, u)), t in zip(bars, total)]
                al = [t - u for t, u in zip(total, unal)]
                ax.bar(xs, al, bottom=bottom, width=0.8, color=colors[k], edgecolor='white',
                       linewidth=0.3)
                bottom = [b + y for b, y in zip(bottom, al)]
                if any(unal):
                    ax.bar(xs, unal, bottom=bottom, width=0.8, color=colors[k], hatch='////',
                           edgecolor='#222222', linewidth=0.3)
                    bottom = [b + y for b, y in zip(bottom, unal)]
            ax.set_xticks(list(xs))
            ax.set_xticklabels([pol for pol, _ in bars], fontsize=7)
            text = num(runs[bars[0][0]]['files'][f], 'text_kb')
            ax.set_title(f'{name(f)} ({text / 1024:.1f} MiB text)' if text >= 1024
                         else f'{name(f)} ({text:.0f}K text)', fontsize=8)
            ax.set_ylim(0, 102)
            ax.tick_params(axis='y', labelsize=7)
        for r in range(nrow):
            axes[r][0].set_ylabel('% of text', fontsize=8)
        handles = [Patch(color=colors[k], label=k) for k in reversed(cols)]
        handles.append(Patch(facecolor='white', edgecolor='#222222', hatch='////',
                             label='unaligned'))
        fig.legend(handles=handles, loc='upper right', fontsize=7, frameon=False)
        fig.suptitle(f'{arch}: {prog}, folio sizes of the text of each mapped file, per policy',
                     fontsize=9, x=0.02, ha='left')
        fig.tight_layout(rect=(0, 0, 1 - 1.2 / (3.1 * ncol + 1.4), 0.97))
        out = os.path.join(outdir, f'field-{arch}-{prog}.png')
        fig.savefig(out, dpi=100)
        plt.close(fig)
        written.append(out)
    return written


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', help='write DIR/field-<arch>.md (and PNGs with --png)')
    ap.add_argument('--png', action='store_true')
    ap.add_argument('--all-files', action='store_true')
    ap.add_argument('--plot-only', action='store_true', help=argparse.SUPPRESS)
    ap.add_argument('logs', nargs='+')
    a = ap.parse_args()
    data = parse(a.logs)
    if not data:
        print('field-table: no "# field" lines in ' + ' '.join(a.logs), file=sys.stderr)
        return 1
    if a.png and not a.out:
        ap.error('--png needs --out')
    missing = False
    for arch in sorted(data):
        if not a.plot_only:
            md = markdown(arch, data[arch], a.all_files)
            if a.out:
                path = os.path.join(a.out, f'field-{arch}.md')
                with open(path, 'w') as f:
                    f.write(f'# Real programs on {arch}: text per mapped file and policy\n\n')
                    f.write('Measured by tests/guest/field.sh (tables: tests/lib/field-table.py, '
                            'whose docstring defines each figure).\n\n')
                    f.write('\n'.join(md) + '\n')
                print(path)
            else:
                print('\n'.join(md))
        if a.png:
            written = plot(arch, data[arch], a.out, a.all_files)
            if written is None:
                missing = True
            else:
                print('\n'.join(written))
    if missing:
        # Debian's python3-matplotlib is for /usr/bin/python3, which may
        # not be the python3 first in PATH.
        other = '/usr/bin/python3'
        if not a.plot_only and os.path.realpath(sys.executable) != os.path.realpath(other) \
                and os.path.exists(other) and subprocess.run(
                    [other, '-c', 'import matplotlib'], capture_output=True).returncode == 0:
            return subprocess.run([other, __file__, '--plot-only', '--png', '--out', a.out]
                                  + (['--all-files'] if a.all_files else []) + a.logs).returncode
        print('field-table: no matplotlib (apt-get install python3-matplotlib): '
              'plots skipped', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
