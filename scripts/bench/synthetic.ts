// Synthetic MNIST-shaped data for timing (the values do not matter to the speed).
import { mulberry32 } from '../../src/shared/rng.ts';

export function syntheticMnistLike(count: number): { features: Float32Array; labels: Float32Array; count: number } {
  const rng = mulberry32(12345);
  const features = new Float32Array(count * 784);
  for (let i = 0; i < features.length; i++) features[i] = rng.float();
  const labels = new Float32Array(count * 10);
  for (let i = 0; i < count; i++) labels[i * 10 + rng.below(10)] = 1;
  return { features, labels, count };
}
