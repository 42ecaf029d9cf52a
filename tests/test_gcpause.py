"""gc_deferred: the collector is off inside, back on after, and nothing is leaked."""

from __future__ import annotations

import gc
import weakref

from infra.models.gcpause import gc_deferred


class _Node:
    pass


def test_off_inside_on_after_and_cycles_still_collected():
    assert gc.isenabled()
    with gc_deferred():
        assert not gc.isenabled()
        a, b = _Node(), _Node()
        a.other, b.other = b, a  # a reference cycle made in the block
        ref = weakref.ref(a)
        del a, b
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0  # moved back into the oldest generation, not frozen
    assert ref() is not None  # only the collector frees a cycle ...
    gc.collect()
    assert ref() is None  # ... and the next full collection does


def test_left_off_when_the_caller_turned_it_off():
    gc.disable()
    try:
        with gc_deferred():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_nested_blocks_and_errors_restore_it():
    try:
        with gc_deferred():
            with gc_deferred():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the outer block still holds it off
            raise ValueError
    except ValueError:
        pass
    assert gc.isenabled()


def test_a_callers_frozen_objects_stay_frozen():
    """The block must not unfreeze what the caller froze (that would drop the count to 0).
    The count may still fall a little: frozen objects that another thread (tqdm's monitor,
    started by an earlier test's import) frees by reference counting leave the permanent
    generation, which made an exact ``>= frozen`` flaky in full runs."""
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen
        with gc_deferred():
            assert not gc.isenabled()
        assert gc.isenabled() and gc.get_freeze_count() > frozen // 2
    finally:
        gc.unfreeze()
