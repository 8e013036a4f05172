#!/usr/bin/env python3
"""expect-from-log.py LOG [--prefix P] [-o FILE] [--force]

Write the expected-results list of one guest boot (the --expect FILE of
tests/lib/parse-console.py) from a good console log of that boot: every
KUnit suite ("kunit <suite>") and every TAP result of every plan step
("<step> <test name>"), in the order the log has them; "<step> # NO-TAP"
for a step that printed no TAP result.  SKIPs the log shows are written
with " # SKIP-OK", and each of them, like each NO-TAP step, is also
printed as a warning on stderr: a human must decide that skipping (or
printing nothing) is right for that boot, and edit the list if not.

Regenerate a list when tests are added, from a run that passed:

    tests/lib/expect-from-log.py build/logs/guest-x86_64.log \\
        --prefix x86_64 -o tests/expect/x86_64.txt

The log must be good: it refuses (exit 1) a log with a failed result, a
failed step, a GUEST-ERROR, a kernel splat or no GUEST-DONE, unless
--force.

--control writes the list of a negative control (a kernel built without
one of the series' patches): the failed results are written with
" # MUST-FAIL" (each printed as a warning: a human checks that these, and
only these, are what the patch is for), and their steps may exit
non-zero; anything else wrong is still refused.
"""
import argparse
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    'parse_console', os.path.join(here, 'parse-console.py'))
pc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--prefix', default='', help='the boot\'s name, for the header')
    ap.add_argument('-o', '--output', help='write here instead of stdout')
    ap.add_argument('--force', action='store_true',
                    help='write a list even from a log that is not good')
    ap.add_argument('--control', action='store_true',
                    help='failed results are MUST-FAIL (a negative control)')
    args = ap.parse_args()
    pre = f'{args.prefix}: ' if args.prefix else ''

    con = pc.Console(args.log)
    failing = {w for w, _, s, _ in con.results if s == 'not ok'}
    problems = [] if args.control else \
        [f'{w} {n} failed' for w, n, s, _ in con.results if s == 'not ok']
    problems += [f'step {s} exited {rc}' for s, rc in con.steps
                 if rc and not (args.control and s in failing)]
    if args.control and not failing:
        problems.append('a negative control with no failed result')
    problems += [f'GUEST-ERROR {e}' for e in con.errors]
    problems += [f'kernel splat: {s}' for s in con.splats[:5]]
    if not con.done:
        problems.append('no GUEST-DONE (hang or early death)')
    if not con.begun:
        problems.append('the plan ran no step')
    if problems:
        for p in problems:
            print(f'expect-from-log: {pre}{p}', file=sys.stderr)
        if not args.force:
            print(f'expect-from-log: {args.log} is not a good run; '
                  'not writing a list (--force to anyway)', file=sys.stderr)
            return 1

    out = [f'# Expected results of the guest boot{" " + args.prefix if args.prefix else ""}, '
           'for tests/lib/parse-console.py --expect.',
           f'# Written by tests/lib/expect-from-log.py from {os.path.basename(args.log)};',
           '# "# SKIP-OK": may skip.  "# NO-TAP": a step that prints no TAP result.'
           + ('  "# MUST-FAIL": must fail.' if args.control else '')]
    where_seen = []
    for where, name, status, why in con.results:
        if where not in where_seen:
            where_seen.append(where)
        line = f'{where} {name}'
        if status == 'not ok' and args.control:
            line += ' # MUST-FAIL'
            print(f'expect-from-log: warning: {pre}{where} {name} fails: '
                  'marked MUST-FAIL, review it', file=sys.stderr)
        elif status == 'skip':
            line += ' # SKIP-OK'
            print(f'expect-from-log: warning: {pre}{where} {name} SKIPs '
                  f'({why or "no reason given"}): marked SKIP-OK, review it',
                  file=sys.stderr)
        out.append(line)
    seen = set()
    for step in con.begun:
        if step in con.tap_steps or step in seen:
            continue
        seen.add(step)
        out.append(f'{step} # NO-TAP')
        print(f'expect-from-log: warning: {pre}step {step} prints no TAP result: '
              'marked NO-TAP, review it', file=sys.stderr)
    text = '\n'.join(out) + '\n'
    if args.output:
        with open(args.output, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
