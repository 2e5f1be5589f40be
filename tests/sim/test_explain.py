"""Deadlock explanations a person can follow."""
from wgprim.sim import SCENARIOS, Machine, simulate
from wgprim.sim.explain import format_ids


def run(name, n, machine=Machine(2, 8), policy="in-order", seed=0):
    return simulate(SCENARIOS[name].build(n, 4), machine, policy, seed)


def test_spin_lock_reads_like_the_reference_text():
    result = run("spin-lock", 10_000)
    assert result.headline == ("workgroup 0 waits for 9999; 9999 is queued behind 9983 "
                               "others; all 16 slots are held by waiting workgroups")
    assert result.details[0] == ("workgroups 0–15 wait for flag 'ready'; only workgroup 9999 "
                                 "sets it (queued)")
    assert result.queued == 9984 and result.queued_next[:3] == [16, 17, 18]


def test_global_barrier_names_the_missing_arrivals():
    result = run("global-barrier", 100)
    assert result.headline.startswith("workgroup 0 waits for 16 and 83 others; 16 is next "
                                      "in the queue")
    waiter = result.to_dict()["waiting"][0]
    assert waiter["waits_for"] == {"counter": "arrived", "at_least": 100, "value": 16}
    assert waiter["on_count"] == 84 and waiter["on_state"] == "queued"


def test_chained_scan_points_at_the_link_that_is_queued():
    result = run("chained-scan", 100, policy="adversarial")
    assert result.headline.startswith("workgroup 84 waits for 83; 83 is next in the queue")
    states = {w.workgroup: w.reason for w in result.waiting}
    assert states[84] == "queued" and states[99] == "waiting"


def test_json_object_has_the_documented_keys():
    out = run("spin-lock", 50, Machine(1, 4)).to_dict()
    for key in ("scenario", "verdict", "makespan", "waiting", "queued"):
        assert key in out
    assert out["verdict"] == "deadlock" and out["makespan"] is None
    assert out["waiting"][0] == {"workgroup": 0, "dispatch": 1, "compute_unit": 0, "slot": 0,
                                 "waits_for": {"flag": "ready"}, "on": [49], "on_count": 1,
                                 "on_state": "queued"}
    done = run("two-dispatch", 50).to_dict()
    assert done["verdict"] == "completes" and done["makespan"] == 8
    assert done["waiting"] == [] and done["queued"] == 0


def test_format_ids():
    assert format_ids([3, 0, 1, 2, 7, 9, 10]) == "0–3, 7, 9, 10"
    assert format_ids(list(range(0, 40, 2)), limit=3) == "0, 2, 4, ..."
