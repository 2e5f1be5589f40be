var<workgroup> tile: array<f32, 256>;
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  tile[lid.x] = data[wid.x * 256u + lid.x];
  workgroupBarrier();
  if (lid.x < 128u) {
    tile[lid.x] += tile[lid.x + 128u];
    workgroupBarrier(); // expect: nonuniform-barrier
  }
  data[wid.x] = tile[0];
}
