#!/usr/bin/env python3
"""bench/effect.py: what PMD-mapped text is worth on this CPU.

Run by bench/effect.sh, as root, inside a private mount namespace.  The
guests run under TCG, which models no TLB, so the folio shares the
project reports get their worth from here: the host's own kernel, whose
tmpfs mounted huge=always gives a program or library run from it text
in 2M folios, PMD-mapped where the mapping is 2M-aligned (ld.so maps
objects at the address shmem_get_unmapped_area() aligns; the kernel's
ELF loader places a 4K-p_align PIE at a random 4K-aligned address, so
the same 2M folios end up mapped by PTEs).

Variants, each from its own tmpfs, the programs and their ldd closure
copied there:
  4K        huge=never, every object through ld.so: 4K folios
  2M-PTE    huge=always, main program exec()ed directly: 2M folios,
            the program's text PTE-mapped (its libraries through ld.so)
  2M-PMD    huge=always, everything through ld.so: 2M folios, PMD-mapped

Workloads, interleaved (the order of the variants rotates each round):
  calls     a random indirect call into one of 8192 functions spread
            over 32 MiB of text (one per 4K page, staggered across cache
            sets); ns per call, measured by the program after it has
            faulted every page in
  clang     clang-14 -O2 compiling bench/effect-input.cc (libstdc++'s
            heavier headers): wall time; its text is libLLVM and
            libclang-cpp, mapped by ld.so in every variant, so 2M-PTE is
            not measured
  mariadbd  Debian's mariadbd (9 MiB of text in the executable) under
            sysbench oltp_read_only, 2 threads: transactions per second

Each run records the kernel's own count of PMD-mapped text
(ShmemPmdMapped in smaps) and the peak RSS (ru_maxrss, VmHWM for the
server).  The report gives medians, the range, and the ratio of medians
to 4K; a gain whose ranges overlap 4K's is marked within noise.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def closure(binary):
    """The binary's ldd closure: (name, path) of each object, ld.so first."""
    out = subprocess.run(["ldd", binary], check=True, capture_output=True, text=True).stdout
    objs = []
    for line in out.splitlines():
        m = re.search(r"(\S+) => (/\S+)", line) or re.search(r"^\s*(/\S+ld-linux\S*)", line)
        if m:
            path = m.group(2) if m.lastindex == 2 else m.group(1)
            objs.append((os.path.basename(path), os.path.realpath(path)))
    return objs


class Mount:
    def __init__(self, root, name, huge):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        sh("mount", "-t", "tmpfs", "-o", f"huge={huge},size=3G,mode=0755", name, self.dir)
        os.makedirs(os.path.join(self.dir, "lib"))
        self.ldso = None

    def install(self, binary):
        """Copy binary and its closure; return the copy's path."""
        for name, path in closure(binary):
            dst = os.path.join(self.dir, "lib", name)
            if not os.path.exists(dst):
                shutil.copy(path, dst)
            if name.startswith("ld-linux"):
                self.ldso = dst
        dst = os.path.join(self.dir, os.path.basename(binary))
        shutil.copy(binary, dst)
        return dst

    def argv(self, prog, args, direct):
        """argv to run prog (a copy here): exec()ed, or through ld.so."""
        if direct:
            return [prog] + args
        return [self.ldso, "--library-path", os.path.join(self.dir, "lib"), prog] + args

    def env(self):
        e = dict(os.environ)
        e["LD_LIBRARY_PATH"] = os.path.join(self.dir, "lib")
        return e


def pmd_kb(pid):
    """ShmemPmdMapped + FilePmdMapped of pid, kB (the kernel's count)."""
    kb = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith(("ShmemPmdMapped:", "FilePmdMapped:")):
                    kb += int(line.split()[1])
    except OSError:
        pass
    return kb


def run_rss(argv, env, cwd):
    """Run argv; return (wall s, stdout, peak RSS kB, max PMD-mapped kB)."""
    t0 = time.monotonic()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(w, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        if cwd:
            os.chdir(cwd)
        try:
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    os.close(w)
    os.set_blocking(r, False)
    out = b""
    peak_pmd = 0
    while True:
        try:
            chunk = os.read(r, 65536)
            if chunk:
                out += chunk
        except BlockingIOError:
            pass
        wpid, status, ru = os.wait4(pid, os.WNOHANG)
        if wpid == pid:
            break
        peak_pmd = max(peak_pmd, pmd_kb(pid))
        time.sleep(0.02)
    while True:
        try:
            chunk = os.read(r, 65536)
        except BlockingIOError:
            break
        if not chunk:
            break
        out += chunk
    os.close(r)
    wall = time.monotonic() - t0
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        sys.exit(f"effect: {' '.join(argv)}: status {status}")
    return wall, out.decode(), ru.ru_maxrss, peak_pmd


def calls_prog(build):
    src = os.path.join(build, "calls.c")
    with open(src, "w") as f:
        subprocess.run([sys.executable, os.path.join(here, "effect-calls.py"), "8192"], stdout=f, check=True)
    exe = os.path.join(build, "effect-calls")
    sh("gcc", "-O1", "-fno-toplevel-reorder", "-DNFUNC=8192", "-o", exe, src)
    return exe


def mysql_ready(sock, timeout=60):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if subprocess.run(["mariadb-admin", f"--socket={sock}", "-uroot", "ping"],
                          capture_output=True).returncode == 0:
            return True
        time.sleep(0.3)
    return False


def sysbench(sock, what, seconds=None, extra=()):
    cmd = ["sysbench", "--db-driver=mysql", f"--mysql-socket={sock}", "--mysql-user=root",
           "--tables=4", "--table-size=20000"]
    if seconds:
        cmd += ["--threads=2", f"--time={seconds}"]
    cmd += list(extra) + ["oltp_read_only", what]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def summarize(vals, higher_better):
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals),
            "higher": higher_better}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--db-rounds", type=int, default=5)
    ap.add_argument("--db-seconds", type=int, default=20)
    ap.add_argument("--only", default="calls,clang,mariadbd")
    ap.add_argument("--commit", default="?")
    a = ap.parse_args()
    only = a.only.split(",")
    root = tempfile.mkdtemp(prefix="effect.")
    build = os.path.join(root, "build")
    os.makedirs(build)
    mnt = {"4K": Mount(root, "small", "never"), "2M": Mount(root, "huge", "always")}
    variants = {"4K": ("4K", False), "2M-PTE": ("2M", True), "2M-PMD": ("2M", False)}
    results = {}	# (workload, variant) -> list of (value, rss kB, pmd kB)
    load0 = os.getloadavg()
    t_start = time.monotonic()

    def rotate(names, r):
        k = r % len(names)
        return names[k:] + names[:k]

    if "calls" in only:
        exe = calls_prog(build)
        progs = {m: mnt[m].install(exe) for m in mnt}
        names = ["4K", "2M-PTE", "2M-PMD"]
        for r in range(a.rounds):
            for v in rotate(names, r):
                m, direct = variants[v]
                argv = mnt[m].argv(progs[m], ["20000000"], direct)
                wall, out, rss, _ = run_rss(argv, mnt[m].env(), None)
                ns = float(re.search(r"ns_per_call (\S+)", out).group(1))
                pmd = int(re.search(r"text_pmd_kb (\d+)", out).group(1))
                results.setdefault(("calls", v), []).append((ns, rss, pmd))
                print(f"calls {v} round {r}: {ns:.1f} ns/call, text PMD-mapped {pmd} kB, peak RSS {rss} kB",
                      flush=True)

    if "clang" in only:
        clang = os.path.realpath(shutil.which("clang-14"))
        resdir = subprocess.run([clang, "-print-resource-dir"], check=True, capture_output=True,
                                text=True).stdout.strip()
        progs = {m: mnt[m].install(clang) for m in mnt}
        src = os.path.join(here, "effect-input.cc")
        args = ["-resource-dir", resdir, "-std=c++17", "-O2", "-c", src, "-o", "/dev/null"]
        names = ["4K", "2M-PMD"]
        for r in range(a.rounds):
            for v in rotate(names, r):
                m, direct = variants[v]
                wall, out, rss, pmd = run_rss(mnt[m].argv(progs[m], args, direct), mnt[m].env(), build)
                results.setdefault(("clang", v), []).append((wall, rss, pmd))
                print(f"clang {v} round {r}: {wall:.2f} s, PMD-mapped {pmd} kB, peak RSS {rss} kB", flush=True)

    if "mariadbd" in only:
        server = "/usr/sbin/mariadbd"
        progs = {m: mnt[m].install(server) for m in mnt}
        data = os.path.join(mnt["4K"].dir, "data")
        sock = os.path.join(root, "mysql.sock")
        sh("mariadb-install-db", "--no-defaults", f"--datadir={data}", "--user=root",
           "--auth-root-authentication-method=normal", "--skip-test-db",
           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        prepared = False
        names = ["4K", "2M-PTE", "2M-PMD"]
        for r in range(a.db_rounds):
            for v in rotate(names, r):
                m, direct = variants[v]
                args = ["--no-defaults", f"--datadir={data}", f"--socket={sock}", "--skip-networking",
                        "--user=root", f"--pid-file={root}/mysqld.pid", "--innodb-buffer-pool-size=256M",
                        f"--log-error={root}/mysqld.err", "--skip-log-bin"]
                p = subprocess.Popen(mnt[m].argv(progs[m], args, direct), env=mnt[m].env(),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                if not mysql_ready(sock):
                    p.kill()
                    sys.exit(f"effect: mariadbd ({v}) did not start; see {root}/mysqld.err")
                if not prepared:
                    subprocess.run(["mariadb", f"--socket={sock}", "-uroot", "-e",
                                    "CREATE DATABASE IF NOT EXISTS sbtest"], check=True)
                    sysbench(sock, "prepare")
                    prepared = True
                sysbench(sock, "run", 5)	# warm the buffer pool and the text
                out = sysbench(sock, "run", a.db_seconds)
                tps = float(re.search(r"transactions:\s+\d+\s+\((\S+) per sec", out).group(1))
                pmd = pmd_kb(p.pid)
                with open(f"/proc/{p.pid}/status") as f:
                    rss = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
                p.send_signal(signal.SIGTERM)
                p.wait(timeout=120)
                results.setdefault(("mariadbd", v), []).append((tps, rss, pmd))
                print(f"mariadbd {v} round {r}: {tps:.1f} TPS, PMD-mapped {pmd} kB, VmHWM {rss} kB", flush=True)

    load1 = os.getloadavg()
    write_report(a, results, load0, load1, time.monotonic() - t_start)


def write_report(a, results, load0, load1, elapsed):
    units = {"calls": ("ns per call", False), "clang": ("s per compile", False),
             "mariadbd": ("transactions/s", True)}
    what = {"calls": "random calls over 32 MiB of text (8192 functions)",
            "clang": "clang-14 -O2 -c bench/effect-input.cc",
            "mariadbd": "mariadbd, sysbench oltp_read_only, 2 threads"}
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    lines = []
    lines.append("# What PMD-mapped text is worth on this machine's CPU")
    lines.append("")
    lines.append(f"Measured {time.strftime('%Y-%m-%d', time.gmtime())} at commit {a.commit} by "
                 "`bench/effect.sh` on the host's own kernel "
                 f"({os.uname().release}, {os.cpu_count()} cores, {cpu}), not in a guest: "
                 "the guests run under TCG, which models no TLB.  The host is itself a virtual "
                 "machine, so a TLB miss costs a nested walk here; bare metal may gain less.")
    lines.append(f"Load average {load0[0]:.2f} at the start, {load1[0]:.2f} at the end; "
                 f"{elapsed / 60:.1f} minutes.  Variants interleaved, order rotated each round.")
    lines.append("")
    lines.append("Each variant runs its own copy of the program and its `ldd` closure from a tmpfs: "
                 "`4K` from `huge=never` (4K folios); `2M-PTE` from `huge=always`, the program "
                 "exec()ed, so its 2M folios are mapped by PTEs at the random 4K-aligned address "
                 "the ELF loader gives a PIE; `2M-PMD` from `huge=always` through ld.so, whose "
                 "mappings tmpfs aligns to 2M, so the kernel PMD-maps them. "
                 "PMD-mapped is the kernel's count (`ShmemPmdMapped`); peak RSS is `ru_maxrss` "
                 "(`VmHWM` for the server).")
    lines.append("")
    lines.append("| workload | variant | median | range | vs 4K | text PMD-mapped | peak RSS | runs |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for wl in ("calls", "clang", "mariadbd"):
        if (wl, "4K") not in results:
            continue
        unit, higher = units[wl]
        base = [x[0] for x in results[(wl, "4K")]]
        bmed = statistics.median(base)
        for v in ("4K", "2M-PTE", "2M-PMD"):
            if (wl, v) not in results:
                continue
            rs = results[(wl, v)]
            vals = [x[0] for x in rs]
            med = statistics.median(vals)
            if v == "4K":
                rel = "1"
            else:
                ratio = med / bmed
                gain = (ratio - 1) * 100 if higher else (1 - ratio) * 100
                if higher:
                    overlap = min(vals) <= max(base)
                else:
                    overlap = max(vals) >= min(base)
                word = "better" if gain >= 0 else "worse"
                rel = f"{ratio:.3f} ({abs(gain):.1f}% {word}{', within noise' if overlap else ''})"
            fmt = "{:.1f}" if wl != "clang" else "{:.2f}"
            rng = f"{fmt.format(min(vals))}-{fmt.format(max(vals))}"
            pmd = statistics.median([x[2] for x in rs])
            rss = statistics.median([x[1] for x in rs])
            lines.append(f"| {what[wl] if v == '4K' else ''} | {v} | {fmt.format(med)} {unit} | {rng} | "
                         f"{rel} | {pmd / 1024:.0f} MiB | {rss / 1024:.0f} MiB | {len(vals)} |")
    lines.append("")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
