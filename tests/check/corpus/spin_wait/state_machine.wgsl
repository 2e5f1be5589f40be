// A litmus-style state machine: one workgroup stores a flag, the other stays in state 0
// until it sees it. The wait hides behind a program counter and a separate exit variable;
// `pc = 0u` (stay) makes no progress, and the store in state 1 is to another word.
struct Mem { flags: array<atomic<u32>, 2>, count: atomic<u32> }
@group(0) @binding(0) var<storage, read_write> mem: Mem;

@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>) {
  var pc = 0u;
  var done = 0u;
  if (wid.x == 0u) {
    atomicStore(&mem.flags[0], 1u);
  } else {
    while (true) { // expect: spin-wait
      if (done == 1u) { break; }
      switch pc {
        case 0u {
          if (atomicLoad(&mem.flags[0]) == 1u) { pc = pc + 1u; } else { pc = 0u; }
        }
        case 1u {
          atomicStore(&mem.flags[1], 1u);
          pc = pc + 1u;
        }
        default {
          done = 1u;
        }
      }
    }
  }
  atomicAdd(&mem.count, 1u);
}
