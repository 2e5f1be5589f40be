// Every statement form: loops with continuing and break-if, switch with default selectors,
// labeled-less nested blocks, increments, phony assignments, attributes on statements.
@group(0) @binding(0) var<storage, read_write> out: array<i32>;

fn classify(v: i32) -> i32 {
  switch v {
    case 0: { return 10; }
    case 1, 2, { return 20; }
    case 3, default: { return 30; }
  }
}

fn classify_u(v: u32) -> u32 {
  var r = 0u;
  switch (v & 3u) {
    case 0u { r = 1u; }
    default { r = 2u; }
  }
  return r;
}

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
  let n = 4;
  var acc = 0;
  for (var i = 0; i < n; i++) {
    if i == 1 { continue; } else if (i == 2) { acc -= 1; } else { acc += i; }
  }
  for (acc = 0; acc < 3; acc = acc + 1) { }
  for (;;) { break; }
  var k = 0;
  while k < 10 { k += 2; }
  loop {
    k--;
    if (k < 0) { break; }
    continuing {
      acc++;
      break if acc > 100;
    }
  }
  @diagnostic(off, derivative_uniformity) if (k == -1) { acc = classify(acc); }
  {
    let scoped = 1;
    acc += scoped;
  }
  ;
  let arr = array<i32, 3>(1, 2, 3);
  let a2 = array(1, 2, 3);
  let idx = arr[1] < arr[2];
  let cmp = vec2<bool>(arr[0] > 0, arr[1] >= 1);
  out[lid.x + lid.y * 8u] = acc + select(0, 1, idx && all(cmp)) + a2[0] + i32(classify_u(lid.x));
  const_assert 1 < 2;
  discard_nothing();
}

fn discard_nothing() {}
