// A best-effort rendezvous before a test: each workgroup counts itself in, then polls the
// count (atomicAdd of 0u is a read) until everyone has arrived or 1024 polls have passed.
// The count only grows, so `seen >= expected` can only be late, never wrong, and the poll
// has a bound of its own: the partial value it reads is what it means to read.
@group(0) @binding(0) var<storage, read_write> arrivals: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> slots: array<atomic<u32>>;
fn line_up(expected: u32) {
  var polls = 0u;
  var seen = atomicAdd(&arrivals, 1u);
  loop {
    if (polls == 1024u || seen >= expected) {
      break;
    }
    seen = atomicAdd(&arrivals, 0u);
    polls = polls + 1u;
  }
}
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  line_up(groups.x * 64u);
  atomicStore(&slots[wid.x * 64u + lid.x], 1u);
}
