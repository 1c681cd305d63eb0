/** Workflows as the platform has them: the store's definitions, enrollments and log
 * (store/workflows.ts) together with the engine that runs their steps and sends their webhooks on
 * timers (workflow-engine.ts). One object, so that callers reach both through one name
 * (`services.workflows.create`, `.runDue`, `.start`), while the store stays SQL only. */
import type { Engine } from '../db/engine';
import { workflowStore, type WorkflowDeps } from '../store/workflows';
import { workflowEngine, type EngineDeps, type WebhookOptions } from './workflow-engine';

export function workflowsWithEngine(
  engine: Engine,
  deps: WorkflowDeps & Pick<EngineDeps, 'write'>,
  now: () => number,
  webhookOptions: WebhookOptions,
) {
  return { ...workflowStore(engine, deps, now), ...workflowEngine(engine, deps, now, webhookOptions) };
}

export type Workflows = ReturnType<typeof workflowsWithEngine>;
