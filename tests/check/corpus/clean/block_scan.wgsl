// Inclusive Hillis-Steele scan of one 256-element block: 8 barrier steps in one workgroup.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> block_sums: array<u32>;
var<workgroup> temp: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {
  let i = wid.x * 256u + li;
  temp[li] = select(0u, data[i], i < arrayLength(&data));
  workgroupBarrier();
  for (var offset = 1u; offset < 256u; offset <<= 1u) {
    var t = temp[li];
    if (li >= offset) {
      t += temp[li - offset];
    }
    workgroupBarrier();
    temp[li] = t;
    workgroupBarrier();
  }
  if (i < arrayLength(&data)) {
    data[i] = temp[li];
  }
  if (li == 255u) {
    block_sums[wid.x] = temp[255];
  }
}
