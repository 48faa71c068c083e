// The names `model: { net: <name> }` takes, apart from the table of their builders
// (nets-table.ts, which must hold exactly these): the config's types and the public API name the
// networks without importing tfjs's types (the builders' are tfjs's, whose declarations fail a
// strict consumer's type check).
export const NET_NAMES = ['resnet18', 'resnet34', 'resnet50', 'resnet18-cifar', 'resnet34-cifar', 'mobilenet-v2', 'vgg16', 'efficientnet-b0', 'lenet'] as const;
export type NetName = (typeof NET_NAMES)[number];
