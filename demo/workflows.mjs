// The demo portal's "thanks" email: a workflow that sends it to whoever sends the contact form.
// The platform sends no mail; the inspector's mail view (/_inspector/mail.html) shows it, with
// its "Manage your email preferences" link to the companion's preference centre. Used by
// demo/start.mjs and the end-to-end tests' system (test/browser/system.ts).
import { demoThanksCampaign, DEMO_PORTAL } from '@svc/platform';

export const THANKS_WORKFLOW = 'Thank contact-form leads';

/** Made once (with the campaign, for data from before it), and again if its email changed. */
export async function thanksWorkflow(platform, formGuid) {
  const { workflows, engine } = platform.services;
  const campaignId = await demoThanksCampaign(platform.services);
  for (const w of await workflows.list(engine, DEMO_PORTAL)) {
    if (w.name != THANKS_WORKFLOW) continue;
    if (w.actions[0]?.emailCampaignId == campaignId) return w.id;
    await workflows.remove(engine, DEMO_PORTAL, w.id);
  }
  const created = await workflows.create(engine, DEMO_PORTAL, {
    name: THANKS_WORKFLOW,
    type: 'DRIP_DELAY',
    enabled: true,
    allowContactToTriggerMultipleTimes: true,
    segmentCriteria: [[{ operator: 'HAS_FILLED_OUT_FORM', form: formGuid }]],
    actions: [{ type: 'EMAIL', emailCampaignId: campaignId }],
  });
  return created.id;
}
