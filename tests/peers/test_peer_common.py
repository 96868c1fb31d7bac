"""bench/peers/peer_common.py and the layout conversions of the runners, with numpy alone (no
framework installed): the preprocessing rules, the batch order, the lr policies, the model
header, and the NCHW -> NHWC permutation that lets TF's flattening read ablate's weights.
"""
import argparse
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(REPO, "bench", "peers"))
import peer_common as pc  # noqa: E402
import tensorflow_graphs as tg  # noqa: E402 (numpy only at import)


class TransformTest(unittest.TestCase):
    def setUp(self):
        self.train = np.random.RandomState(3).randint(0, 256, size=(50, 1, 4, 4)).astype(np.uint8)

    def test_scale_multiplies_in_the_runs_dtype(self):
        for dtype in (np.float32, np.float64):
            x = pc.Transform("scale:1/255", self.train, dtype)(self.train)
            self.assertEqual(x.dtype, dtype)
            np.testing.assert_array_equal(x, self.train.astype(dtype) * dtype(1 / 255))

    def test_pad_then_standardize_global_uses_the_sample_std_of_the_padded_training_set(self):
        x = pc.Transform("pad:2+standardize:global", self.train, np.float64)(self.train)
        self.assertEqual(x.shape, (50, 1, 8, 8))
        padded = np.pad(self.train.astype(np.float64), ((0, 0), (0, 0), (2, 2), (2, 2)))
        np.testing.assert_allclose(x, (padded - padded.mean()) / padded.std(ddof=1), rtol=1e-12, atol=1e-12)

    def test_mean_image_subtracts_the_training_mean_after_the_rules_before_it(self):
        x = pc.Transform("scale:0.5+mean:image", self.train, np.float64)(self.train[:3])
        np.testing.assert_allclose(x, self.train[:3] * 0.5 - (self.train * 0.5).mean(0), atol=1e-12)

    def test_a_rule_it_lacks_is_not_comparable_naming_it(self):
        with self.assertRaisesRegex(pc.NotComparable, "random_crop:24x24"):
            pc.Transform("random_crop:24x24", self.train, np.float32)


class BatchesTest(unittest.TestCase):
    def test_in_order_batches_wrap_into_the_next_epoch(self):
        b = pc.batch_indices(5, 3, False, np.random.RandomState(1))
        self.assertEqual([next(b).tolist() for _ in range(3)], [[0, 1, 2], [3, 4, 0], [1, 2, 3]])

    def test_shuffled_epochs_are_permutations_and_differ(self):
        b = pc.batch_indices(6, 6, True, np.random.RandomState(1))
        first, second = next(b), next(b)
        self.assertEqual(sorted(first.tolist()), list(range(6)))
        self.assertEqual(sorted(second.tolist()), list(range(6)))
        self.assertNotEqual(first.tolist(), second.tolist())

    def test_test_batches_cover_the_set_or_wrap_for_a_fixed_count(self):
        a = argparse.Namespace(test_iterations=0, test_batch=4)
        self.assertEqual([i.tolist() for i in pc.test_batches(a, 6)], [[0, 1, 2, 3], [4, 5]])
        a.test_iterations = 2
        self.assertEqual([i.tolist() for i in pc.test_batches(a, 6)], [[0, 1, 2, 3], [4, 5, 0, 1]])


class StepClockTest(unittest.TestCase):
    def test_windows_split_the_timed_steps_and_their_rates_come_from_the_clock(self):
        """10 steps, 2 of them warm-up, 4 windows of 2 steps; step i takes i + 1 seconds on a
        fake clock, so window w (steps 2w+2, 2w+3) takes 4w + 7 seconds for 2 batches of 5."""
        now = [0.0]
        real = pc.time.perf_counter
        pc.time.perf_counter = lambda: now[0]
        try:
            clock = pc.StepClock(argparse.Namespace(batch=5, warmup=2, iterations=10, windows=4))
            for i in range(10):
                clock.step_started(i)
                now[0] += i + 1
                clock.step_done(i)
            clock.stop()
        finally:
            pc.time.perf_counter = real
        self.assertEqual(clock.steps, 8)
        self.assertAlmostEqual(clock.seconds, sum(range(3, 11)))
        self.assertAlmostEqual(clock.images_per_s, 8 * 5 / sum(range(3, 11)))
        rates = [float(r) for r in clock.window_images_per_s.split(",")]
        self.assertEqual(len(rates), 4)
        for w, r in enumerate(rates):
            self.assertAlmostEqual(r, 10 / (4 * w + 7), places=1)

    def test_fewer_timed_steps_than_windows_give_one_window_a_step(self):
        clock = pc.StepClock(argparse.Namespace(batch=1, warmup=0, iterations=3, windows=8))
        for i in range(3):
            clock.step_started(i)
            clock.step_done(i)
        self.assertEqual(len(clock.stop().marks), 3)

    def test_a_window_count_below_one_is_refused_naming_it(self):
        with self.assertRaisesRegex(SystemExit, "--windows 0: expected a positive"):
            pc.StepClock(argparse.Namespace(batch=1, warmup=0, iterations=3, windows=0))


class PolicyTest(unittest.TestCase):
    def test_each_policy_at_known_iterations(self):
        a = argparse.Namespace(base_lr=0.1, gamma=0.5, power=0.75, stepsize=10, stepvalues="5,8", lr_policy="")
        expect = {"fixed": 0.1, "step": 0.1 * 0.5 ** 2, "exp_staircase": 0.1 * 0.5 ** 2, "multistep": 0.1 * 0.25,
                  "inv": 0.1 * (1 + 0.5 * 20) ** -0.75, "torch_decay": 0.1 / (1 + 20 * 0.5)}
        for policy, value in expect.items():
            a.lr_policy = policy
            self.assertAlmostEqual(pc.learning_rate(a, 20), value, places=15, msg=policy)
        a.lr_policy = "cosine"
        with self.assertRaisesRegex(pc.NotComparable, "cosine"):
            pc.learning_rate(a, 0)


class ModelHeaderTest(unittest.TestCase):
    def test_zoo_files_give_name_input_classes_and_layers(self):
        name, shape, classes, layers = pc.model_header(os.path.join(REPO, "models", "zoo", "tf-mnist.model"))
        self.assertEqual((name, shape, classes), ("tf-mnist", [1, 28, 28], 10))
        self.assertEqual(tg.parameter_layers(layers), [("conv1", "convolution", 32), ("conv2", "convolution", 64),
                                                       ("fc1", "inner_product", 1024), ("fc2", "inner_product", 10)])
        self.assertEqual(tg.dropout_keep(layers), 0.5)


class LayoutTest(unittest.TestCase):
    def test_tf_reads_ablates_dense_weight_after_a_convolution_through_the_row_permutation(self):
        rng = np.random.RandomState(0)
        c, h, w, o = 3, 2, 4, 5
        act = rng.rand(2, c, h, w)  # NCHW, as ablate holds it
        weight = rng.rand(o, c * h * w)  # ablate's [O, C*H*W], columns in NCHW order
        ablate_out = act.reshape(2, -1) @ weight.T
        tf_out = act.transpose(0, 2, 3, 1).reshape(2, -1) @ tg.dense_from_nchw(c, h, w)(weight)  # NHWC flattening
        np.testing.assert_allclose(tf_out, ablate_out, rtol=1e-14)

    def test_conv_weight_goes_to_hwio(self):
        k = np.arange(2 * 3 * 5 * 5).reshape(2, 3, 5, 5)
        self.assertEqual(tg.conv_to_hwio(k).shape, (5, 5, 3, 2))
        self.assertEqual(tg.conv_to_hwio(k)[4, 1, 2, 1], k[1, 2, 4, 1])


if __name__ == "__main__":
    unittest.main()
