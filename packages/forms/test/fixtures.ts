/** Definitions in the anchor's legacy v2 format, as the companion serves them. */
import type { FormDefinition, FormField } from '../src/types';

const opts = (...values: string[]) =>
  values.map((v, i) => ({ label: v[0].toUpperCase() + v.slice(1), value: v, displayOrder: i }));

export const field = (f: FormField): FormField => ({ type: 'string', fieldType: 'text', required: false, ...f });

/** One field of every type the embed renders. */
export const everyType: FormDefinition = {
  guid: 'every-type',
  portalId: 62515,
  name: 'Every type',
  submitText: 'Send it',
  cssClass: 'hs-form stacked',
  formFieldGroups: [
    { fields: [], richText: { content: '<h2>Tell us about you</h2><p>It takes <strong>a minute</strong>.</p>' } },
    { fields: [field({ name: 'firstname', label: 'First name', placeholder: 'Ada', defaultValue: 'Grace' })] },
    {
      fields: [
        field({ name: 'email', label: 'Email', fieldType: 'email', required: true, description: 'We never share it.' }),
      ],
    },
    { fields: [field({ name: 'message', label: 'Message', fieldType: 'textarea', defaultValue: 'Hello' })] },
    { fields: [field({ name: 'employees_count', label: 'Employees', type: 'number', fieldType: 'number' })] },
    {
      fields: [
        field({
          name: 'visit_date',
          label: 'Visit date',
          type: 'date',
          fieldType: 'date',
          defaultValue: String(Date.UTC(2026, 10, 2)),
        }),
      ],
    },
    {
      fields: [
        field({
          name: 'numemployees',
          label: 'Company size',
          type: 'enumeration',
          fieldType: 'select',
          options: opts('small', 'large'),
          unselectedLabel: 'Pick one',
        }),
        field({
          name: 'lifecyclestage',
          label: 'Stage',
          type: 'enumeration',
          fieldType: 'radio',
          required: true,
          options: opts('lead', 'customer'),
          selectedOptions: ['lead'],
        }),
      ],
    },
    {
      fields: [
        field({
          name: 'interests',
          label: 'Interests',
          type: 'enumeration',
          fieldType: 'checkbox',
          options: [...opts('news', 'events'), { label: 'Secret', value: 'secret', hidden: true }],
          selectedOptions: ['events'],
        }),
      ],
    },
    {
      fields: [
        field({
          name: 'subscribe',
          label: 'Subscribe me',
          type: 'bool',
          fieldType: 'booleancheckbox',
          labelHidden: false,
        }),
      ],
    },
    { fields: [field({ name: 'campaign', label: 'Campaign', hidden: true, defaultValue: 'spring' })] },
    { fields: [field({ name: 'fax', label: 'Fax', enabled: false })] },
  ],
};

/** A select with a dependent text field shown for one choice. */
export const dependent: FormDefinition = {
  guid: 'dependent',
  fields: [
    field({ name: 'email', label: 'Email', required: true }),
    field({
      name: 'source',
      label: 'How did you hear of us?',
      type: 'enumeration',
      fieldType: 'select',
      options: opts('search', 'other'),
      dependentFieldFilters: [
        {
          filters: [{ operator: 'EQ', strValue: 'other' }],
          dependentFormField: field({ name: 'source_other', label: 'Where?', required: true }),
          formFieldAction: 'DISPLAY',
        },
      ],
    }),
  ],
};
