#!/usr/bin/env python3
"""parse-console.py [--expect-kunit SUITE ...] [--prefix P] LOG

Judge one guest run from its console log and print one TAP-style line
per result ("ok - ..." / "not ok - ..."):

  - every top-level KUnit suite (KTAP), and each --expect-kunit SUITE
    must be there;
  - every step of the guest's plan (GUEST-BEGIN/END) must end with rc=0,
    and every TAP result inside it is reported (SKIPs as skipped);
  - the guest must reach GUEST-DONE (no hang, no early death);
  - no kernel splat: BUG, WARNING, Oops, KASAN, lockdep, panic.

The "# folio-dist" lines the tests print are copied to --dist FILE for
the folio size table.  Exit status: 0 if nothing failed.  The last line
is "N passed, N failed, N skipped".
"""
import argparse
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
SPLAT = re.compile(r'(BUG:|WARNING:|Oops|KASAN|possible circular locking|'
                   r'lockdep|Kernel panic|general protection fault|'
                   r'Unable to handle kernel|unreferenced object)')
TAP = re.compile(r'^(not ok|ok) \d+ (.*?)(?:\s+#\s*(SKIP|skip)\b(.*))?$')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--expect-kunit', action='append', default=[])
    ap.add_argument('--prefix', default='')
    ap.add_argument('--dist')
    args = ap.parse_args()

    counts = {'passed': 0, 'failed': 0, 'skipped': 0}
    pre = args.prefix + ': ' if args.prefix else ''

    def report(ok, what, skip=None):
        if skip is not None:
            counts['skipped'] += 1
            print(f'ok - {pre}{what} # SKIP {skip}'.rstrip())
        elif ok:
            counts['passed'] += 1
            print(f'ok - {pre}{what}')
        else:
            counts['failed'] += 1
            print(f'not ok - {pre}{what}')

    with open(args.log, errors='replace') as f:
        lines = [TS.sub('', l.rstrip('\r\n')) for l in f]

    kunit = {}
    step = None
    steps = []
    done = False
    splats = []
    dists = []
    for line in lines:
        if SPLAT.search(line):
            splats.append(line)
        if line.startswith('GUEST-BEGIN '):
            step = line.split(' ', 1)[1]
            continue
        if line.startswith('GUEST-END '):
            m = re.match(r'GUEST-END (\S+) rc=(\d+)', line)
            steps.append((m.group(1), int(m.group(2))) if m else (line, 1))
            step = None
            continue
        if line == 'GUEST-DONE':
            done = True
            continue
        if line.startswith('# folio-dist '):
            dists.append(f'{args.prefix or "guest"} {line[len("# folio-dist "):]}')
        m = TAP.match(line)
        if not m:
            continue
        ok, name, skip, why = m.group(1) == 'ok', m.group(2), m.group(3), m.group(4)
        if step is None:
            kunit[name] = ok            # a top-level KTAP line: a suite
            report(ok, f'kunit {name}', (why or '').strip() if skip else None)
        else:
            report(ok, f'{step} {name}', (why or '').strip() if skip else None)

    for suite in args.expect_kunit:
        if suite not in kunit:
            report(False, f'kunit {suite} did not run')
    for name, rc in steps:
        report(rc == 0, f'step {name} exited {rc}')
    report(done, 'guest ran its whole plan and powered off')
    report(not splats, 'no kernel warnings or oopses')
    for s in splats[:20]:
        print(f'#   {s}')
    if args.dist:
        with open(args.dist, 'a') as f:
            f.writelines(d + '\n' for d in dists)
    print(f"{counts['passed']} passed, {counts['failed']} failed, "
          f"{counts['skipped']} skipped")
    return 1 if counts['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
