"""crowd.lipsync_rms against crowd.h's formula evaluated here in double precision (NumPy):
sqrt(sum of squares over every channel and frame / (channels * frames)), rounded to float32."""
import math

import numpy as np
import pytest

import crowd


def reference(samples, frames, channels):
    x = np.asarray(samples, np.float32).reshape(-1)[:frames * channels].astype(np.float64)
    return float(np.float32(math.sqrt(math.fsum(x * x) / (channels * frames))))


@pytest.mark.parametrize("channels", [1, 2, 3, 8])
def test_random_blocks_match_the_double_formula(channels):
    rng = np.random.default_rng(channels)
    for frames in (1, 7, 8, 735, 1470):
        s = rng.uniform(-1, 1, frames * channels).astype(np.float32)
        assert crowd.lipsync_rms(s, frames, channels) == reference(s, frames, channels)
        assert crowd.lipsync_rms(s, channels=channels) == reference(s, frames, channels)  # every whole frame


def test_sixteen_bit_samples_in_the_handlers_scale():
    """The handler's scale: a 16-bit sample s becomes (s * 65536) / 2147483647 as a float."""
    pcm = np.array([32767, -32768, 1000, -1000, 0, 12345], np.int64)
    s = np.array([np.float32(v * 65536 / 2147483647) for v in pcm], np.float32)
    assert crowd.lipsync_rms(s, 3, 2) == reference(s, 3, 2)
    assert abs(crowd.lipsync_rms(s, 3, 2) - math.sqrt(np.sum((pcm / 32768.0) ** 2) / 6)) < 1e-4


def test_fewer_frames_than_the_samples_hold_read_only_those():
    s = np.array([0.5, 0.5, 100.0, 100.0], np.float32)
    assert crowd.lipsync_rms(s, 1, 2) == np.float32(0.5)


def test_empty_and_non_finite_blocks_give_zero():
    assert crowd.lipsync_rms(np.zeros(0, np.float32)) == 0.0
    assert crowd.lipsync_rms(np.ones(4, np.float32), 0, 2) == 0.0
    assert crowd.lipsync_rms(np.ones(4, np.float32), 2, 0) == 0.0
    assert crowd.lipsync_rms(np.array([1, np.inf], np.float32)) == 0.0
    assert crowd.lipsync_rms(np.array([1, np.nan], np.float32)) == 0.0


def test_more_frames_than_the_samples_hold_are_refused():
    with pytest.raises(ValueError, match="3 frames of 2 channels need 6 samples, got 5"):
        crowd.lipsync_rms(np.ones(5, np.float32), 3, 2)
