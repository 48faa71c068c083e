// The model's own layer classes: a learned position embedding and a Transformer block (one-head
// self-attention and a feed-forward net, each with a residual connection and a layer norm).
// The default export defines them with the `tf` it is given and registers them, so a model.json
// that names them loads: mgpu-train calls it in every worker (model.customLayers), and so must
// any other program before tf.loadLayersModel. It returns the classes for model.ts to build with.
import type * as tfjs from '@tensorflow/tfjs';

type Tensor = tfjs.Tensor;
type Shape = tfjs.Shape;
type LayerVariable = tfjs.LayerVariable;
type Kwargs = Record<string, unknown>;

export default function registerLayers(tf: typeof tfjs) {
  const one = (inputs: Tensor | Tensor[]) => (Array.isArray(inputs) ? inputs[0]! : inputs);
  const glorot = () => tf.initializers.glorotUniform({});

  /** Adds a learned vector to each position of a [batch, steps, width] sequence. */
  class PositionEmbedding extends tf.layers.Layer {
    static className = 'PositionEmbedding';
    private table!: LayerVariable;
    build(inputShape: Shape | Shape[]): void {
      const [, steps, width] = inputShape as Shape;
      this.table = this.addWeight('table', [steps!, width!], 'float32', tf.initializers.randomNormal({ stddev: 0.02 }));
      this.built = true;
    }
    call(inputs: Tensor | Tensor[], _kwargs: Kwargs): Tensor {
      return tf.tidy(() => tf.add(one(inputs), this.table.read()));
    }
  }

  /** One-head self-attention, then a position-wise feed-forward net of `hidden` units. */
  class TransformerBlock extends tf.layers.Layer {
    static className = 'TransformerBlock';
    readonly hidden: number;
    private w: Record<string, LayerVariable> = {};
    constructor(config: { hidden: number; name?: string }) {
      super(config);
      this.hidden = config.hidden;
    }
    build(inputShape: Shape | Shape[]): void {
      const width = (inputShape as Shape)[2]!;
      const add = (name: string, shape: number[], init: ReturnType<typeof glorot>) => (this.w[name] = this.addWeight(name, shape, 'float32', init));
      for (const name of ['query', 'key', 'value', 'out']) add(name, [width, width], glorot());
      add('ff1', [width, this.hidden], glorot());
      add('ff1Bias', [this.hidden], tf.initializers.zeros());
      add('ff2', [this.hidden, width], glorot());
      add('ff2Bias', [width], tf.initializers.zeros());
      for (const n of ['norm1', 'norm2']) {
        add(`${n}Gain`, [width], tf.initializers.ones());
        add(`${n}Bias`, [width], tf.initializers.zeros());
      }
      this.built = true;
    }
    call(inputs: Tensor | Tensor[], _kwargs: Kwargs): Tensor {
      return tf.tidy(() => {
        const x = one(inputs);
        const [, steps, width] = x.shape as number[];
        const w = (name: string) => this.w[name]!.read();
        // [batch, steps, a] x [a, b] -> [batch, steps, b]
        const dense = (t: Tensor, kernel: string, bias?: string) => {
          const y = tf.reshape(tf.matMul(tf.reshape(t, [-1, t.shape[2]!]), w(kernel)), [-1, steps!, w(kernel).shape[1]!]);
          return bias ? tf.add(y, w(bias)) : y;
        };
        const norm = (t: Tensor, n: string) => {
          const { mean, variance } = tf.moments(t, -1, true);
          return tf.add(tf.mul(tf.div(tf.sub(t, mean), tf.sqrt(tf.add(variance, 1e-5))), w(`${n}Gain`)), w(`${n}Bias`));
        };
        const scores = tf.div(tf.matMul(dense(x, 'query'), dense(x, 'key'), false, true), Math.sqrt(width!));
        const attended = dense(tf.matMul(tf.softmax(scores), dense(x, 'value')), 'out');
        const h = norm(tf.add(x, attended), 'norm1');
        const ff = dense(tf.relu(dense(h, 'ff1', 'ff1Bias')), 'ff2', 'ff2Bias');
        return norm(tf.add(h, ff), 'norm2');
      });
    }
    getConfig(): tfjs.serialization.ConfigDict {
      return { ...super.getConfig(), hidden: this.hidden };
    }
  }

  tf.serialization.registerClass(PositionEmbedding);
  tf.serialization.registerClass(TransformerBlock);
  return { PositionEmbedding, TransformerBlock };
}
