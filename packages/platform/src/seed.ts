/** The demo portal seeded on first start: credentials, a custom property, forms, lists,
 * subscription types and campaigns with events, and a welcome workflow. */
import type { Transaction } from './db/engine';
import type { Services } from './services/wiring';
import { seedEmailDefaults } from './store/email-seed';
import { createPortal, issuePortalCredentials, type PortalCredentials } from './store/portals';

export const DEMO_PORTAL = 62515;

/** The demo's "thanks" email, which its contact-form workflow sends (demo/workflows.mjs): the
 * demo portal's campaign of this name, made on first use (data from before it has none). */
export function demoThanksCampaign(services: Services): Promise<number> {
  return services.email.ensureCampaign(services.engine, DEMO_PORTAL, {
    appId: 114,
    appName: 'Automated',
    contentId: 311_702_530,
    name: 'Thanks for getting in touch',
    subject: 'Thanks for getting in touch',
    type: 'AUTOMATED_EMAIL',
    numIncluded: 0,
    numQueued: 0,
    processingState: 'DONE',
    lastProcessingFinishedAt: null,
    fromEmail: 'hello@acme.test',
    body: 'Thanks for writing to Acme Widgets. We read every message and answer within one working day.\n\nIn the meantime, our pricing page has the answers to the questions we hear most.',
  });
}

/** Seeds the demo portal unless it exists; returns its new credentials (shown once). */
export async function seedDemo(services: Services): Promise<PortalCredentials | undefined> {
  const { engine, now } = services;
  if (await services.portals.tier(engine, DEMO_PORTAL)) return undefined;
  // In one transaction: a demo portal is made whole or not at all.
  return engine.tx(async (tx) => {
    const t = now();
    await createPortal(tx, services, { id: DEMO_PORTAL, name: DEMO_NAME, tier: 'enterprise', now: t });
    const credentials = await issuePortalCredentials(tx, DEMO_PORTAL, t);
    await seedDemoContent(tx, services, t);
    return credentials;
  });
}

/** The demo portal's name, by which a reset (admin API) knows to seed its content again. */
export const DEMO_NAME = 'Acme Widgets (demo)';

/** The demo's data beyond a new portal's defaults, in the transaction `tx` that made the portal
 * (or reset it: the admin API's reset of the demo portal seeds it again). */
export async function seedDemoContent(tx: Transaction, services: Services, t: number) {
  const p = DEMO_PORTAL;
  await seedEmailDefaults(tx, p, t);

  await services.properties.createGroup(tx, p, 'widgetinformation', {
    displayName: 'Widget Information',
    displayOrder: 10,
  });
  await services.properties.create(tx, p, 'favorite_widget', {
    label: 'Favourite widget',
    groupName: 'widgetinformation',
    type: 'enumeration',
    fieldType: 'select',
    formField: true,
    options: ['sprocket', 'gizmo', 'doohickey'].map((value, displayOrder) => ({
      value,
      label: value[0].toUpperCase() + value.slice(1),
      displayOrder,
    })),
  });

  const newsletterType = (await services.email.definitions(tx, p)).find((d) => d.name == 'Weekly Newsletter')!.id;
  const contactForm = await services.forms.create(tx, p, {
    name: 'Contact us',
    submitText: 'Send',
    inlineMessage: 'Thanks! We will be in touch.',
    // Groups as the form editor makes them: an introduction in rich text, a work address (free
    // mail refused), and a question shown only once a widget is picked. A known visitor finds
    // their address and name filled in, and once their last name is known they are asked for
    // their company instead, then their role (progressive profiling, one question at a time).
    formFieldGroups: [
      {
        fields: [],
        richText: {
          content: '<p>Questions about widgets? <strong>We answer within one working day.</strong></p>',
          type: 'TEXT',
        },
      },
      {
        fields: [
          {
            name: 'email',
            required: true,
            prefill: true,
            validation: { name: '', message: 'Please use your work address', useDefaultBlockList: true },
          },
        ],
      },
      {
        fields: [
          { name: 'firstname', required: true, prefill: true },
          { name: 'lastname', isSmartField: true },
        ],
      },
      {
        fields: [
          {
            name: 'favorite_widget',
            dependentFieldFilters: [
              {
                filters: [{ operator: 'IS_NOT_EMPTY' }],
                dependentFormField: { name: 'numemployees', label: 'How many people will use it?' },
              },
            ],
          },
        ],
      },
      { fields: [{ name: 'message' }] },
    ],
    queuedFields: [
      { name: 'company', label: 'Which company are you with?' },
      { name: 'jobtitle', label: 'What is your role?' },
    ],
    queueLimit: 1,
    legalConsentOptions: {
      communicationConsentText: '<p>Acme Widgets would like to send you news about widgets.</p>',
      communicationsCheckboxes: [{ subscriptionTypeId: newsletterType, label: 'Send me the weekly newsletter' }],
      consentToProcessText: '<p>We store what you send us to answer you.</p>',
      consentToProcessCheckboxLabel: 'I agree that Acme Widgets stores my details',
      privacyText: '<p>You can unsubscribe at any time from the email preferences page.</p>',
    },
  });
  await services.forms.create(tx, p, {
    name: 'Newsletter sign-up',
    submitText: 'Subscribe',
    inlineMessage: 'You are on the list.',
    fields: [{ name: 'email', required: true }, { name: 'firstname' }],
  });

  const newsletter = await services.lists.create(tx, p, { name: 'Newsletter readers', dynamic: false });
  await services.lists.create(tx, p, {
    name: 'Contact form leads',
    dynamic: true,
    filters: [[{ operator: 'HAS_FILLED_OUT_FORM', form: contactForm.guid }]],
  });
  await services.lists.create(tx, p, {
    name: 'Acme colleagues',
    dynamic: true,
    filters: [[{ operator: 'CONTAINS', property: 'email', value: '@acme.test', type: 'string' }]],
  });

  await services.workflows.create(tx, p, {
    name: 'Welcome new leads',
    type: 'DRIP_DELAY',
    enabled: true,
    allowContactToTriggerMultipleTimes: false,
    actions: [
      { type: 'SET_CONTACT_PROPERTY', propertyName: 'lifecyclestage', newValue: 'lead' },
      { type: 'DELAY', delayMillis: 60 * 60 * 1000 },
      { type: 'ADD_TO_LIST', listId: newsletter.listId },
    ],
  });
}
