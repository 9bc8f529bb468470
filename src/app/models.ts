import type { ModelListing } from '../models/list-models.js';
import type { RecallMeaning } from '../models/recall-meaning.js';
import type { PullRequest, PullResult } from '../models/pull-model.js';
import type { RemoveModelReport } from '../models/remove-model.js';
import type { Shared } from './shared.js';

/** `moon models list`: the models in the home, and which one recall uses. */
export interface ModelsListing {
  /** $MOON_HOME/models. */
  dir: string;
  models: ModelListing[];
  /** What recall uses: words only, or words and meaning through a provider (and which model). */
  recall: RecallMeaning;
}

/** The embedding models of the upkeep plane: pull, list, remove (src/models/). */
export interface ModelsUpkeep {
  pullModel(request?: PullRequest): Promise<PullResult>;
  listModels(): Promise<ModelsListing>;
  removeModel(name: string): Promise<RemoveModelReport>;
}

export function createModelsUpkeep(shared: Shared): ModelsUpkeep {
  const { config, paths } = shared;
  return {
    async pullModel(request = {}) {
      const [{ pullModel }, { describeHub }, { resolvePullTarget }] = await Promise.all([
        import('../models/pull-model.js'),
        import('../models/hub-client.js'),
        import('../models/model-name.js'),
      ]);
      const ref = resolvePullTarget(request.spec);
      const hub = describeHub({ endpoint: config.models.endpoint, tokenEnv: config.models.token_env }, shared.hooks.env ?? process.env);
      hub.unreachableHint =
        `offline? on a machine that reaches ${hub.endpoint}, run \`moon models pull ${request.spec ?? ref.name}\` and copy its ` +
        `$MOON_HOME/models/${ref.name} folder to ${paths.models}/${ref.name} here (or set models.endpoint to a mirror)`;
      return pullModel({ home: paths.home, modelsDir: paths.models, hub, nowMs: shared.clock() }, request);
    },
    async listModels() {
      const [{ listModels }, { describeRecallMeaning }] = await Promise.all([import('../models/list-models.js'), import('../models/recall-meaning.js')]);
      return { dir: paths.models, models: listModels(paths.models), recall: describeRecallMeaning(config.embed, paths.models) };
    },
    async removeModel(name) {
      const { removeModel } = await import('../models/remove-model.js');
      return removeModel(paths.home, paths.models, name);
    },
  };
}
