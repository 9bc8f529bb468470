/**
 * A tiny sentence-embedding model built by the tests themselves, laid out the way a hub repo of an ONNX export is
 * (config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json, onnx/model.onnx and
 * onnx/model_quantized.onnx), so the real @huggingface/transformers loader runs on it end to end.
 *
 * The ONNX graph is one Gather node: int64 `input_ids` [batch, seq] through a float initializer [vocab, dims] to
 * `last_hidden_state` [batch, seq, dims]; `attention_mask` and `token_type_ids` are declared as inputs (unused,
 * which ONNX allows) because a BERT export has them. The tokenizer is a small WordPiece vocabulary. Words of one
 * topic share a direction, so texts about one topic embed close together even when they share no word: recall by
 * meaning can be told apart from recall by words.
 */

/** Topics and their words; each topic owns one dimension. */
export const TINY_TOPICS: Record<string, readonly string[]> = {
  database: ['database', 'postgres', 'sqlite', 'schema', 'migration', 'table', 'index', 'query'],
  deploy: ['deploy', 'deployed', 'release', 'ship', 'production', 'staging', 'wrangler', 'rollout'],
  testing: ['test', 'tests', 'vitest', 'assertion', 'flaky', 'coverage', 'mock', 'fixture'],
  payment: ['stripe', 'invoice', 'payment', 'webhook', 'refund', 'billing', 'charge', 'card'],
};
const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
const COMMON = ['the', 'a', 'to', 'we', 'i', 'it', 'is', 'was', 'and', 'of', 'for', 'on', 'in', 'with', 'our', 'after', 'about', 'fix', 'fixed', 'run', 'ran'];

export interface TinyModel {
  /** Files by their path in the repo. */
  files: Map<string, Buffer>;
  dims: number;
  vocab: string[];
}

/** The model's files; `dims` is the number of topics plus one dimension every token shares a little of. */
export function buildTinyModel(): TinyModel {
  const topics = Object.keys(TINY_TOPICS);
  const dims = topics.length + 1;
  const vocab = [...SPECIALS, ...COMMON, ...topics.flatMap((topic) => TINY_TOPICS[topic]!), '.', ',', '?', '!', ':', '-', '/'];
  const weights = new Float32Array(vocab.length * dims);
  vocab.forEach((word, row) => {
    const topic = topics.findIndex((name) => TINY_TOPICS[name]!.includes(word));
    if (topic >= 0) weights[row * dims + topic] = 1;
    weights[row * dims + dims - 1] = 0.05; // no text embeds to the zero vector
  });
  const files = new Map<string, Buffer>();
  files.set('config.json', Buffer.from(`${JSON.stringify({ architectures: ['BertModel'], model_type: 'bert', hidden_size: dims, vocab_size: vocab.length, max_position_embeddings: 512 }, null, 2)}\n`));
  files.set('tokenizer.json', Buffer.from(JSON.stringify(tokenizerJson(vocab))));
  files.set(
    'tokenizer_config.json',
    Buffer.from(
      JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' }),
    ),
  );
  files.set('special_tokens_map.json', Buffer.from(JSON.stringify({ cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' })));
  files.set('onnx/model.onnx', encodeGatherModel(weights, vocab.length, dims, 'moon-tests fp32'));
  files.set('onnx/model_quantized.onnx', encodeGatherModel(weights, vocab.length, dims, 'moon-tests q8'));
  return { files, dims, vocab };
}

function tokenizerJson(vocab: string[]): unknown {
  const ids = Object.fromEntries(vocab.map((word, id) => [word, id]));
  const special = (token: string): unknown => ({ id: ids[token], content: token, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

// --- a minimal protobuf encoder, enough for an ONNX ModelProto ---------------------------------------------

type Field = Buffer;

function varint(value: number | bigint): Buffer {
  let n = BigInt(value);
  if (n < 0n) n += 1n << 64n; // int64 as two's complement
  const bytes: number[] = [];
  do {
    let byte = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (n > 0n);
  return Buffer.from(bytes);
}

const key = (field: number, wire: 0 | 2): Buffer => varint((field << 3) | wire);
const int = (field: number, value: number | bigint): Field => Buffer.concat([key(field, 0), varint(value)]);
const bytes = (field: number, value: Buffer): Field => Buffer.concat([key(field, 2), varint(value.length), value]);
const str = (field: number, value: string): Field => bytes(field, Buffer.from(value, 'utf8'));
const message = (field: number, parts: Field[]): Field => bytes(field, Buffer.concat(parts));

const FLOAT = 1;
const INT64 = 7;

/** A ValueInfoProto: a tensor of `elemType` whose dimensions are names (`batch`) or sizes. */
function valueInfo(field: number, name: string, elemType: number, shape: (string | number)[]): Field {
  const dims = shape.map((dim) => message(1, [typeof dim === 'number' ? int(1, dim) : str(2, dim)]));
  return message(field, [str(1, name), message(2, [message(1, [int(1, elemType), message(2, dims)])])]);
}

/** ModelProto (IR 8, opset 13) of one Gather: input_ids through the [vocab, dims] table. */
export function encodeGatherModel(weights: Float32Array, vocab: number, dims: number, producer: string): Buffer {
  const table = message(5, [int(1, vocab), int(1, dims), int(2, FLOAT), str(8, 'embeddings'), bytes(9, Buffer.from(weights.buffer, weights.byteOffset, weights.byteLength))]);
  const gather = message(1, [str(1, 'embeddings'), str(1, 'input_ids'), str(2, 'last_hidden_state'), str(3, 'lookup'), str(4, 'Gather'), message(5, [str(1, 'axis'), int(20, 2), int(3, 0)])]);
  const graph = message(7, [
    gather,
    str(2, 'tiny-embed'),
    table,
    valueInfo(11, 'input_ids', INT64, ['batch_size', 'sequence_length']),
    valueInfo(11, 'attention_mask', INT64, ['batch_size', 'sequence_length']),
    valueInfo(11, 'token_type_ids', INT64, ['batch_size', 'sequence_length']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch_size', 'sequence_length', dims]),
  ]);
  return Buffer.concat([int(1, 8), str(2, producer), graph, message(8, [str(1, ''), int(2, 13)])]);
}
