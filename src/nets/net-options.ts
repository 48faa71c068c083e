// What a network by name is built with (model.net and its options, resolved): the types the
// builders (one file per family beside this one) and the table of networks (nets-table.ts) share.
import type { LayersModel, SymbolicTensor } from '@tensorflow/tfjs';

export type TF = typeof import('@tensorflow/tfjs');

export interface NetOptions {
  /** Units of the softmax head. */
  classes: number;
  /** [height, width, channels] of one input image. */
  inputShape: [number, number, number];
  /** L2 on every kernel as TF-slim's weight_decay: weightDecay · Σ w² / 2 added to the loss (0: none). */
  weightDecay: number;
  /** The head's dropout rate, for a network that has one (null: the network's own). */
  dropout: number | null;
  /** Channel width multiplier (mobilenet-v2 only; 1 elsewhere). */
  width: number;
  /** Every kernel starts at zero instead of tfjs's initialisers: for counting parameters fast (VGG-16's are 4 s to draw); the layers are the same. */
  zeroInit?: boolean;
}

/** What every kernel of a network is made with: its L2 penalty and its initialiser. */
export type KernelSpec = Pick<NetOptions, 'weightDecay' | 'zeroInit'>;

/** A network by name as a worker builds it: model.net with its class count resolved (the name is a key of nets-table.ts). */
export type NetSpec = NetOptions & { name: string };

/** The per-family builder a table entry names: the options are resolved (the entry's defaults applied). */
export type NetBuilder = (tf: TF, o: NetOptions) => LayersModel;

/** A tensor of the graph a builder wires (tf.layers applied to tf.input). */
export type Sym = SymbolicTensor;
