import { arch, endianness } from "node:os";

/**
 * The seccomp filter of a sandboxed block: a classic-BPF program in the format bubblewrap's `--seccomp FD` loads
 * (an array of `struct sock_filter`, 8 bytes each, in the machine's byte order).
 *
 * It is a deny-list on top of what the namespaces and the dropped capabilities already refuse: the calls that reach
 * kernel surfaces a computation never needs (namespaces, mounts, tracing other processes, keyrings, BPF, io_uring,
 * modules, clocks, swap, reboot) fail with EPERM, as does creating any socket, so that a block can open neither a
 * network nor a Unix socket even where a namespace would have let it. `clone` is refused when it asks for a new
 * namespace; `clone3`, whose flags the filter cannot read (they are behind a pointer), fails with ENOSYS, which makes
 * the C library fall back to `clone`. A call made through another architecture's ABI (i386 on x86_64, x32) ends the
 * process (i386) or fails (x32) rather than bypass the numbers below.
 */

/** The architectures the filter knows, as Node names them. */
export type SeccompArch = "x64" | "arm64";

/** Calls refused with EPERM, by name; each must have a number for every architecture in SYSCALL_NUMBERS (or none). */
export const SECCOMP_DENIED_SYSCALLS = [
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "pidfd_getfd",
  "kcmp",
  "mount",
  "umount2",
  "pivot_root",
  "chroot",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "move_mount",
  "open_tree",
  "mount_setattr",
  "unshare",
  "setns",
  "keyctl",
  "add_key",
  "request_key",
  "bpf",
  "perf_event_open",
  "userfaultfd",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  "kexec_load",
  "kexec_file_load",
  "init_module",
  "finit_module",
  "delete_module",
  "reboot",
  "swapon",
  "swapoff",
  "acct",
  "quotactl",
  "quotactl_fd",
  "open_by_handle_at",
  "name_to_handle_at",
  "fanotify_init",
  "lookup_dcookie",
  "syslog",
  "vhangup",
  "settimeofday",
  "clock_settime",
  "clock_adjtime",
  "adjtimex",
  "sethostname",
  "setdomainname",
  "iopl",
  "ioperm",
  "uselib",
  "socket",
] as const;

type DeniedSyscall = (typeof SECCOMP_DENIED_SYSCALLS)[number];
type NumberedSyscall = DeniedSyscall | "clone" | "clone3";

/** System call numbers (x86_64: arch/x86/entry/syscalls/syscall_64.tbl; aarch64: the generic table). */
const SYSCALL_NUMBERS: Record<SeccompArch, Partial<Record<NumberedSyscall, number>>> = {
  x64: {
    ptrace: 101, process_vm_readv: 310, process_vm_writev: 311, pidfd_getfd: 438, kcmp: 312,
    mount: 165, umount2: 166, pivot_root: 155, chroot: 161, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433,
    move_mount: 429, open_tree: 428, mount_setattr: 442, unshare: 272, setns: 308,
    keyctl: 250, add_key: 248, request_key: 249, bpf: 321, perf_event_open: 298, userfaultfd: 323,
    io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
    kexec_load: 246, kexec_file_load: 320, init_module: 175, finit_module: 313, delete_module: 176,
    reboot: 169, swapon: 167, swapoff: 168, acct: 163, quotactl: 179, quotactl_fd: 443,
    open_by_handle_at: 304, name_to_handle_at: 303, fanotify_init: 300, lookup_dcookie: 212, syslog: 103, vhangup: 153,
    settimeofday: 164, clock_settime: 227, clock_adjtime: 305, adjtimex: 159, sethostname: 170, setdomainname: 171,
    iopl: 172, ioperm: 173, uselib: 134, socket: 41, clone: 56, clone3: 435,
  },
  arm64: {
    ptrace: 117, process_vm_readv: 270, process_vm_writev: 271, pidfd_getfd: 438, kcmp: 272,
    mount: 40, umount2: 39, pivot_root: 41, chroot: 51, fsopen: 430, fsconfig: 431, fsmount: 432, fspick: 433,
    move_mount: 429, open_tree: 428, mount_setattr: 442, unshare: 97, setns: 268,
    keyctl: 219, add_key: 217, request_key: 218, bpf: 280, perf_event_open: 241, userfaultfd: 282,
    io_uring_setup: 425, io_uring_enter: 426, io_uring_register: 427,
    kexec_load: 104, kexec_file_load: 294, init_module: 105, finit_module: 273, delete_module: 106,
    reboot: 142, swapon: 224, swapoff: 225, acct: 89, quotactl: 60, quotactl_fd: 443,
    open_by_handle_at: 265, name_to_handle_at: 264, fanotify_init: 262, lookup_dcookie: 18, syslog: 116, vhangup: 58,
    settimeofday: 170, clock_settime: 112, clock_adjtime: 266, adjtimex: 171, sethostname: 161, setdomainname: 162,
    socket: 198, clone: 220, clone3: 435,
  },
};

/** The number of a call on an architecture (undefined where it has none), for tests that make the call. */
export function syscallNumber(name: NumberedSyscall, on: SeccompArch): number | undefined {
  return SYSCALL_NUMBERS[on][name];
}

/** The architecture this worker runs on, when the filter knows it. */
export function seccompArch(): SeccompArch | undefined {
  const current = arch();
  return current === "x64" || current === "arm64" ? current : undefined;
}

const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
/** x32 system calls come in with AUDIT_ARCH_X86_64 and this bit set in their number. */
const X32_SYSCALL_BIT = 0x40000000;
/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME. */
const CLONE_NAMESPACE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;
const ENOSYS = 38;

// struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** The low 32 bits of args[0] (the filter is only built for little-endian machines). */
const OFFSET_ARG0_LOW = 16;

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JA = 0x05;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_JMP_JSET_K = 0x45;
const BPF_RET_K = 0x06;

type Instruction =
  | { op: "load"; offset: number }
  | { op: "return"; value: number }
  | { op: "jump"; to: string }
  | { op: "if-equal" | "if-at-least" | "if-any-bit"; value: number; then: string; else?: string }
  | { op: "label"; name: string };

/** Resolves labels to the relative offsets classic BPF uses (forward only, at most 255 for a conditional jump). */
function assemble(program: Instruction[]): Buffer {
  const positions = new Map<string, number>();
  let position = 0;
  for (const instruction of program) {
    if (instruction.op === "label") positions.set(instruction.name, position);
    else position += 1;
  }
  const words: [code: number, jt: number, jf: number, k: number][] = [];
  const offsetTo = (label: string | undefined, from: number, limit: number): number => {
    if (label === undefined) return 0;
    const target = positions.get(label);
    if (target === undefined) throw new Error(`seccomp program: no label "${label}"`);
    const offset = target - from - 1;
    if (offset < 0 || offset > limit) throw new Error(`seccomp program: jump to "${label}" out of range (${offset})`);
    return offset;
  };
  for (const instruction of program) {
    const here = words.length;
    switch (instruction.op) {
      case "label":
        break;
      case "load":
        words.push([BPF_LD_W_ABS, 0, 0, instruction.offset]);
        break;
      case "return":
        words.push([BPF_RET_K, 0, 0, instruction.value]);
        break;
      case "jump":
        words.push([BPF_JMP_JA, 0, 0, offsetTo(instruction.to, here, 0xffffffff)]);
        break;
      default: {
        const code = instruction.op === "if-equal" ? BPF_JMP_JEQ_K : instruction.op === "if-at-least" ? BPF_JMP_JGE_K : BPF_JMP_JSET_K;
        words.push([code, offsetTo(instruction.then, here, 255), offsetTo(instruction.else, here, 255), instruction.value]);
      }
    }
  }
  const bytes = Buffer.alloc(words.length * 8);
  words.forEach(([code, jt, jf, k], index) => {
    bytes.writeUInt16LE(code, index * 8);
    bytes.writeUInt8(jt, index * 8 + 2);
    bytes.writeUInt8(jf, index * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return bytes;
}

/** The part of the program for one architecture: its denied numbers, the clone check, clone3. */
function archBody(on: SeccompArch): Instruction[] {
  const numbers = SYSCALL_NUMBERS[on];
  const body: Instruction[] = [{ op: "label", name: on }, { op: "load", offset: OFFSET_NR }];
  if (on === "x64") body.push({ op: "if-at-least", value: X32_SYSCALL_BIT, then: "deny" });
  for (const name of SECCOMP_DENIED_SYSCALLS) {
    const number = numbers[name];
    if (number !== undefined) body.push({ op: "if-equal", value: number, then: "deny" });
  }
  body.push({ op: "if-equal", value: numbers.clone3!, then: "no-such-call" });
  body.push({ op: "if-equal", value: numbers.clone!, then: "clone-flags" });
  body.push({ op: "return", value: SECCOMP_RET_ALLOW });
  return body;
}

/** The compiled filter for the architectures the filter knows; undefined on a big-endian machine. */
export function seccompProgram(): Buffer | undefined {
  if (endianness() !== "LE") return undefined;
  const arches = Object.keys(AUDIT_ARCH) as SeccompArch[];
  const program: Instruction[] = [{ op: "load", offset: OFFSET_ARCH }];
  for (const on of arches) program.push({ op: "if-equal", value: AUDIT_ARCH[on], then: on });
  program.push({ op: "return", value: SECCOMP_RET_KILL_PROCESS });
  for (const on of arches) program.push(...archBody(on));
  program.push(
    { op: "label", name: "clone-flags" },
    { op: "load", offset: OFFSET_ARG0_LOW },
    { op: "if-any-bit", value: CLONE_NAMESPACE_FLAGS, then: "deny" },
    { op: "return", value: SECCOMP_RET_ALLOW },
    { op: "label", name: "deny" },
    { op: "return", value: SECCOMP_RET_ERRNO | EPERM },
    { op: "label", name: "no-such-call" },
    { op: "return", value: SECCOMP_RET_ERRNO | ENOSYS },
  );
  return assemble(program);
}
