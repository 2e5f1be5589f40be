// A state machine that leaves state 0 once atomicExchange returns non-zero: the exchange
// itself leaves 1 in the word, so at the latest the next round returns it and the loop ends
// without any other workgroup. (A lock's exchange writes the value it waits to go away.)
@group(0) @binding(0) var<storage, read_write> gate: atomic<i32>;
@group(0) @binding(1) var<storage, read_write> finished: atomic<u32>;
@compute @workgroup_size(1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  var step = 0u;
  var stop = false;
  if (gid.x == 0u) {
    while (!stop) {
      switch step {
        case 0u: {
          if (atomicExchange(&gate, 1) == 0) {
            step = 0u;
          } else {
            step = 1u;
          }
        }
        default: {
          stop = true;
        }
      }
    }
  }
  atomicAdd(&finished, 1u);
}
