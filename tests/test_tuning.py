"""wgprim.tuning: policies as values, changed for a block, part of the recordings' key."""
import dataclasses
import threading

import pytest

from wgprim import tuning
from wgprim.recordings import settings


@dataclasses.dataclass(frozen=True)
class Tiles:
    items: int = 8
    spin: int = 4

    @classmethod
    def for_device(cls, device):
        return cls(items=device)


@dataclasses.dataclass(frozen=True)
class Other:
    items: int = 1


def test_defaults_and_device_defaults():
    assert tuning.policy(Tiles) == Tiles()
    assert tuning.policy(Tiles, 16) == Tiles(items=16)
    assert tuning.defaults(Other, 3) == Other()


def test_using_changes_fields_for_the_block_only_and_nests():
    with tuning.using(Tiles, spin=0):
        assert tuning.policy(Tiles, 16) == Tiles(items=16, spin=0)
        assert tuning.policy(Other) == Other()
        with tuning.using(Tiles, items=2):
            assert tuning.policy(Tiles, 16) == Tiles(items=2, spin=0)
        with tuning.using(Tiles, spin=9):
            assert tuning.policy(Tiles).spin == 9
        assert tuning.policy(Tiles, 16) == Tiles(items=16, spin=0)
    assert tuning.policy(Tiles, 16) == Tiles(items=16)


def test_using_rejects_unknown_fields_and_non_policies():
    with pytest.raises(TypeError, match="no field spinn"):
        with tuning.using(Tiles, spinn=0):
            pass
    with pytest.raises(TypeError, match="policy class"):
        with tuning.using(object, x=1):
            pass


def test_changes_are_part_of_the_recordings_key_and_stay_in_their_thread():
    before = settings()
    with tuning.using(Tiles, spin=0):
        inside = settings()
        seen = []
        thread = threading.Thread(target=lambda: seen.append(tuning.policy(Tiles)))
        thread.start()
        thread.join()
    assert inside != before and settings() == before
    assert seen == [Tiles()]
    assert {Tiles(spin=0): 1}[Tiles(spin=0)] == 1


@dataclasses.dataclass(frozen=True)
class Checked:
    items: int = 8

    def __post_init__(self):
        if self.items not in (4, 8):
            raise ValueError(f"items must be 4 or 8, not {self.items}")


def test_changed_policies_are_made_once_and_checked_every_time():
    """A front door reads its policy on every call: the defaults and a changed policy are
    made once and found again (the same value); a refused value raises at every read."""
    assert tuning.policy(Checked) is tuning.policy(Checked)
    with tuning.using(Checked, items=4):
        first = tuning.policy(Checked)
        assert first == Checked(items=4) and tuning.policy(Checked) is first
    for _ in range(2):
        with tuning.using(Checked, items=5):
            with pytest.raises(ValueError, match="4 or 8"):
                tuning.policy(Checked)
    with tuning.using(Tiles, spin=[1, 2]):  # an unhashable value still gives its policy
        assert tuning.policy(Tiles, 3) == Tiles(items=3, spin=[1, 2])
