#!/usr/bin/env python3
"""elf-closure.py [--root ROOT] [--ldd] OUTDIR ENTRY...

Copy programs and their shared-library closure into OUTDIR as a chroot
tree, for tests/lib/field-closure.sh.  Every path is copied as the
dynamic loader looks it up: a symlink met on the way (/lib64 -> usr/lib64,
ld-linux-x86-64.so.2 -> ../lib/..., libc.so.6 -> libc-2.36.so, ...) is
recreated as the same symlink in OUTDIR and followed, and the file it
ends at is copied, so "chroot OUTDIR PROGRAM" opens the same paths as on
the machine (or the Debian tree ROOT) the files come from.

ENTRY is a path inside ROOT (default /), copied with its closure, or
SRC=DEST: the file SRC (a host path, outside ROOT) placed at DEST in the
tree, with its closure found in ROOT.  A plain file (data, a Python
module) is copied alone; an ELF file brings its interpreter (PT_INTERP)
and every library it needs, recursively.

--ldd resolves the libraries with ldd (the machine's own programs, ROOT
/); without it they are resolved from the NEEDED entries (readelf -d),
searched in RUNPATH/RPATH ($ORIGIN expanded), then the Debian multiarch
directories of ROOT, as ld.so does without a cache.  Prints each path
copied into OUTDIR; fails if a library cannot be found.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

TRIPLETS = {'x86_64': 'x86_64-linux-gnu', 'aarch64': 'aarch64-linux-gnu'}
MACHINES = {'Advanced Micro Devices X86-64': 'x86_64', 'AArch64': 'aarch64'}


class Tree:
    def __init__(self, root, out):
        self.root = os.path.abspath(root)
        self.out = os.path.abspath(out)
        self.done = set()

    def host(self, path):
        """Where PATH (absolute, in ROOT) is on this machine."""
        return os.path.normpath(self.root + '/' + path) if self.root != '/' else path

    def resolve(self, path, copy=True, depth=0):
        """PATH with every symlink resolved inside ROOT, copying symlinks
        met on the way into OUTDIR (if COPY).  Returns the final path (in
        ROOT terms)."""
        if depth > 40:
            raise OSError(f'too many symlinks at {path}')
        parts = [p for p in path.split('/') if p]
        cur = ''
        for i, name in enumerate(parts):
            if name == '.':
                continue
            if name == '..':
                cur = os.path.dirname(cur)
                continue
            nxt = cur + '/' + name
            h = self.host(nxt)
            if os.path.islink(h):
                target = os.readlink(h)
                if copy:
                    self.symlink(nxt, target)
                base = target if target.startswith('/') else cur + '/' + target
                rest = '/'.join(parts[i + 1:])
                return self.resolve(base + ('/' + rest if rest else ''), copy, depth + 1)
            cur = nxt
        return cur or '/'

    def symlink(self, path, target):
        dst = self.out + path
        if os.path.lexists(dst):
            if os.path.islink(dst) and os.readlink(dst) == target:
                return
            raise OSError(f'{dst} exists and is not the symlink -> {target}')
        self.mkdirs(os.path.dirname(path))
        os.symlink(target, dst)
        print(f'{path} -> {target}')

    def mkdirs(self, path):
        """Directories of OUTDIR, through the symlinks already recreated."""
        real = self.resolve(path, copy=True)
        os.makedirs(self.out + real, exist_ok=True)

    def copy(self, path):
        """Copy PATH (in ROOT) into OUTDIR; returns its real path."""
        real = self.resolve(path)
        self.place(self.host(real), real)
        return real

    def place(self, src, dest):
        if dest in self.done:
            return
        self.done.add(dest)
        self.mkdirs(os.path.dirname(dest))
        if os.path.isdir(src):
            os.makedirs(self.out + dest, exist_ok=True)
        else:
            shutil.copy2(src, self.out + dest)
        print(dest)


def readelf(args, path):
    return subprocess.run(['readelf', '-W'] + args + [path], check=True,
                          capture_output=True, text=True).stdout


def is_elf(path):
    with open(path, 'rb') as f:
        return f.read(4) == b'\x7fELF'


def elf_info(path):
    """(machine, interpreter or None, [NEEDED], [run paths])."""
    hdr = readelf(['-h'], path)
    m = re.search(r'Machine:\s+(.*)', hdr)
    machine = MACHINES.get(m.group(1).strip(), m.group(1).strip()) if m else '?'
    interp = re.search(r'Requesting program interpreter: ([^\]]+)\]', readelf(['-l'], path))
    dyn = readelf(['-d'], path)
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', dyn)
    runpath = []
    for kind in ('RUNPATH', 'RPATH'):
        for rp in re.findall(r'\(' + kind + r'\)\s+Library [a-z]+: \[([^\]]*)\]', dyn):
            runpath += rp.split(':')
    return machine, interp.group(1) if interp else None, needed, runpath


def needed_closure(tree, path, real, seen):
    """Copy the interpreter and libraries that REAL (the host file of
    PATH, in ROOT terms) needs, from the NEEDED entries."""
    machine, interp, needed, runpath = elf_info(real)
    triplet = TRIPLETS.get(machine)
    if not triplet:
        raise OSError(f'{path}: unsupported machine {machine}')
    if interp and interp not in seen:
        seen.add(interp)
        if not os.path.exists(tree.host(interp)):
            raise OSError(f'{path}: interpreter {interp} not found in {tree.root}')
        r = tree.copy(interp)
        needed_closure(tree, interp, tree.host(r), seen)
    origin = os.path.dirname(path)
    dirs = [d.replace('$ORIGIN', origin).replace('${ORIGIN}', origin) for d in runpath]
    dirs += [f'/lib/{triplet}', f'/usr/lib/{triplet}', '/lib', '/usr/lib']
    for lib in needed:
        if lib in seen:
            continue
        seen.add(lib)
        for d in dirs:
            cand = d + '/' + lib
            if os.path.exists(tree.host(tree.resolve(cand, copy=False))):
                r = tree.copy(cand)
                needed_closure(tree, cand, tree.host(r), seen)
                break
        else:
            raise OSError(f'{path}: library {lib} not found in {tree.root} ({", ".join(dirs)})')


def ldd_closure(tree, path, host_file):
    out = subprocess.run(['ldd', host_file], capture_output=True, text=True)
    if out.returncode != 0:
        raise OSError(f'ldd {host_file}: {out.stderr.strip() or out.stdout.strip()}')
    for line in out.stdout.splitlines():
        line = line.strip()
        if 'not found' in line:
            raise OSError(f'{path}: {line}')
        m = re.match(r'(?:\S+ => )?(/\S+) \(0x', line)
        if m:
            tree.copy(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default='/')
    ap.add_argument('--ldd', action='store_true')
    ap.add_argument('out')
    ap.add_argument('entries', nargs='+')
    a = ap.parse_args()
    if a.ldd and a.root != '/':
        ap.error('--ldd needs --root /')
    tree = Tree(a.root, a.out)
    os.makedirs(a.out, exist_ok=True)
    seen = set()
    try:
        for e in a.entries:
            if '=' in e:
                src, dest = e.split('=', 1)
                tree.place(os.path.abspath(src), dest)
                path, host_file = dest, src
            else:
                path = e
                host_file = tree.host(tree.copy(e))
            if os.path.isdir(host_file) or not is_elf(host_file):
                continue
            if a.ldd:
                ldd_closure(tree, path, host_file)
            else:
                needed_closure(tree, path, host_file, seen)
    except (OSError, subprocess.CalledProcessError) as err:
        print(f'elf-closure: {err}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
