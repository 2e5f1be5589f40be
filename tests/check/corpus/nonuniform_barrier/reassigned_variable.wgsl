// A variable that first holds a value read from read_write storage (different for each
// invocation) and is then overwritten with a uniform one: the barrier after the
// overwrite is in uniform control flow, the one before it is not. Inside a loop that
// assigns the variable, every value it ever holds counts.
@group(0) @binding(0) var<storage, read_write> data: array<i32>;
@group(0) @binding(1) var<uniform> limit: i32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32) {
  var x = data[li];
  if (x > 0) {
    workgroupBarrier(); // expect: nonuniform-barrier
  }
  x = limit;
  if (x > 0) {
    workgroupBarrier();
  }
  var y = limit;
  for (var i = 0; i < 4; i++) {
    if (y > 0) {
      workgroupBarrier(); // expect: nonuniform-barrier
    }
    y = data[li];
  }
  var z = limit;
  if (li == 0u) {
    z = data[0];
  }
  if (z > 0) {
    storageBarrier(); // expect: nonuniform-barrier
  }
}
