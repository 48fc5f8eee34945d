#!/usr/bin/env python3
"""The dynamic instruction mix of a workload's counted tick, by class and by function: callgrind's
count of every executed instruction address (--dump-instr=yes) joined with objdump's disassembly
of the object it belongs to. bench/callgrind_mix.sh runs it; this reads a callgrind output file.

    callgrind_mix.py CALLGRIND_OUT PER_INSTANCE_DIVISOR [FUNCTION_SUBSTRING ...]

Classes (x86, VEX/EVEX): float arithmetic (add, sub, mul, div, sqrt, min, max; "of which with a
memory operand" also counts as a load), compares, selects (blendv, and/andn/or of masks, the
AVX-512 masked moves), sign flips (xor), loads and stores of vectors (those addressed from the
stack pointer counted apart: spills), broadcasts, mask tests (movmsk, kortest, ktest), branches, and
the rest (integer, addresses, loop counters, shuffles). Per instance: the count over the
divisor (instances times ticks)."""
import collections
import re
import subprocess
import sys


def parse_callgrind(path):
    """{(object, address): Ir} of every instruction, self cost only (the line after calls= is the
    call's inclusive cost, attributed to the call site: skipped)."""
    names = {"ob": {}, "fn": {}}
    cost = collections.Counter()
    fn_of = {}
    ob = fn = None
    last = 0
    skip_next = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            m = re.match(r"^(c?)(ob|fn|fl|fi|fe|cfi|cfl)=(\((\d+)\))?\s*(.*)$", line)
            if m:
                kind = m.group(2)
                if kind in ("ob", "fn"):
                    table = names[kind]
                    ident, name = m.group(4), m.group(5)
                    if ident is not None and name:
                        table[ident] = name
                    value = table.get(ident, name) if ident is not None else name
                    if not m.group(1):  # ob=, fn= (cob=, cfn= name the callee)
                        if kind == "ob":
                            ob = value
                        else:
                            fn = value
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            if re.match(r"^[a-z]+:", line):
                continue
            parts = line.split()
            pos = parts[0]
            if pos.startswith("0x"):
                addr = int(pos, 16)
            elif pos.startswith("+"):
                addr = last + int(pos[1:], 0)
            elif pos.startswith("-"):
                addr = last - int(pos[1:], 0)
            elif pos == "*":
                addr = last
            else:
                addr = int(pos, 0)
            last = addr
            if skip_next:
                skip_next = False
                continue
            ir = int(parts[1]) if len(parts) > 1 else 0
            cost[(ob, addr)] += ir
            fn_of[(ob, addr)] = fn
    return cost, fn_of


def disassemble(obj):
    """{address: (mnemonic, operands)} of an object, as objdump prints it."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "att", obj], capture_output=True, text=True,
                         check=True).stdout
    table = {}
    for line in out.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m:
            table[int(m.group(1), 16)] = (m.group(2), m.group(3))
    return table


FLOAT = re.compile(r"^v?(add|sub|mul|div|sqrt|min|max)(ps|ss)$")


def classify(mnemonic, operands):
    mem = "(" in operands
    stack = "(%rsp" in operands or "(%rbp" in operands
    # AT&T: the destination is the last operand
    dest_mem = mem and operands.rstrip().endswith(")")
    if FLOAT.match(mnemonic):
        return "float arithmetic (memory operand)" if mem else "float arithmetic"
    if re.match(r"^v?cmp\w*(ps|ss)$", mnemonic) or mnemonic.startswith("vcmp") or mnemonic.startswith("ucomis") or mnemonic.startswith("vucomis") or mnemonic.startswith("comis") or mnemonic.startswith("vcomis"):
        return "compares"
    if re.match(r"^v?(blendv|blend)ps$", mnemonic) or re.match(r"^v?(and|andn|or)ps$", mnemonic) or re.match(r"^vp(and|andn|or)[dq]?$", mnemonic) or mnemonic.startswith("vblendm"):
        return "selects and mask logic"
    if re.match(r"^v?p?xor(ps|d|q)?$", mnemonic) and "%" in operands:
        return "sign flips (xor)"
    if mnemonic.startswith("vbroadcast") or mnemonic.startswith("vpbroadcast"):
        return "broadcasts"
    if re.match(r"^v?mov(u|a)ps$", mnemonic) or re.match(r"^v?movs[sd]$", mnemonic) or mnemonic in ("vmovdqu", "vmovdqa", "vmovdqu32", "vmovdqa32", "vmovdqu64", "vmovdqa64", "movd", "vmovd"):
        if not mem:
            return "register moves"
        if dest_mem:
            return "stores (stack)" if stack else "stores"
        return "loads (stack)" if stack else "loads"
    if mnemonic.startswith("vmovmsk") or mnemonic.startswith("movmsk") or mnemonic.startswith("kortest") or mnemonic.startswith("ktest") or mnemonic.startswith("vptest") or mnemonic.startswith("vtestps") or mnemonic.startswith("kmov") or re.match(r"^k(and|or|xor|not|andn)", mnemonic):
        return "mask tests and mask registers"
    if mnemonic.startswith("j"):
        return "branches"
    if mnemonic in ("ret", "call", "retq", "callq", "push", "pop", "endbr64", "nop", "nopw", "nopl", "xchg") or mnemonic.startswith("nop") or mnemonic.startswith("data16") or mnemonic.startswith("cs"):
        return "calls and frames"
    return "integer, addresses, counters"


def main():
    path, divisor = sys.argv[1], float(sys.argv[2])
    wanted = sys.argv[3:]
    cost, fn_of = parse_callgrind(path)
    dis = {}
    by_class = collections.Counter()
    by_fn_class = collections.defaultdict(collections.Counter)
    unknown = 0
    for (ob, addr), ir in cost.items():
        if ob not in dis:
            try:
                dis[ob] = disassemble(ob)
            except (OSError, subprocess.CalledProcessError):
                dis[ob] = {}
        ins = dis[ob].get(addr)
        if ins is None:
            unknown += ir
            continue
        c = classify(*ins)
        by_class[c] += ir
        fn = fn_of[(ob, addr)] or "?"
        key = next((w for w in wanted if w in fn), None) if wanted else fn
        if key is not None:
            by_fn_class[key][c] += ir
    total = sum(by_class.values()) + unknown
    classes = sorted(by_class, key=lambda c: -by_class[c])
    print("%-36s %9s %7s" % ("class", "per inst", "share"))
    for c in classes:
        print("%-36s %9.1f %6.1f%%" % (c, by_class[c] / divisor, 100.0 * by_class[c] / total))
    if unknown:
        print("%-36s %9.1f" % ("(address not in the disassembly)", unknown / divisor))
    print("%-36s %9.1f" % ("total", total / divisor))
    if by_fn_class:
        print()
        keys = sorted(by_fn_class, key=lambda k: -sum(by_fn_class[k].values()))
        print("per function (per instance):")
        print("%-36s" % "class" + "".join(" %12.12s" % k for k in keys))
        for c in classes:
            print("%-36s" % c + "".join(" %12.1f" % (by_fn_class[k][c] / divisor) for k in keys))
        print("%-36s" % "total" + "".join(" %12.1f" % (sum(by_fn_class[k].values()) / divisor) for k in keys))


if __name__ == "__main__":
    main()
