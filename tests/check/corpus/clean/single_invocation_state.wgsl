// A one-invocation dispatch (workgroup size 1, every address fixed) that keeps its own
// state: it reads back what it wrote itself, in program order. Nothing to publish.
struct State { initialized: atomic<u32>, seed: u32, value: u32 }
@group(0) @binding(0) var<storage, read_write> st: State;

@compute @workgroup_size(1)
fn main() {
  if (atomicLoad(&st.initialized) == 0u) {
    st.value = st.seed;
    atomicStore(&st.initialized, 1u);
  }
  if (atomicLoad(&st.initialized) == 1u) {
    st.value = st.value * 1664525u + 1013904223u;
  }
}
