/** The properties and groups every portal starts with (the anchor's defaults, neutral names). */
import type { z } from 'zod';
import type { schemas } from '@svc/api';
import { SOURCE_TYPES } from '../domain/traffic-sources';

type Property = z.input<typeof schemas.property>;

export const DEFAULT_CONTACT_GROUPS = [
  { name: 'contactinformation', displayName: 'Contact Information', displayOrder: 0 },
  { name: 'emailinformation', displayName: 'Email Information', displayOrder: 1 },
  { name: 'socialmediainformation', displayName: 'Social Media Information', displayOrder: 2 },
  { name: 'companyinformation', displayName: 'Company Information', displayOrder: 3 },
  { name: 'analyticsinformation', displayName: 'Web Analytics History', displayOrder: 4 },
  { name: 'conversioninformation', displayName: 'Conversion Information', displayOrder: 5 },
];

export const DEFAULT_DEAL_GROUPS = [
  { name: 'dealinformation', displayName: 'Deal Information', displayOrder: 0 },
  { name: 'analyticsinformation', displayName: 'Analytics History', displayOrder: 1 },
];

/** The analytics properties the collector and the events API maintain. */
export const ANALYTICS = {
  pageViews: 'svc_analytics_num_page_views',
  firstUrl: 'svc_analytics_first_url',
  lastUrl: 'svc_analytics_last_url',
  firstVisit: 'svc_analytics_first_visit_timestamp',
  lastVisit: 'svc_analytics_last_visit_timestamp',
  eventCompletions: 'svc_analytics_num_event_completions',
  revenue: 'svc_analytics_revenue',
  conversions: 'num_conversion_events',
  /** Set by every form submission (store/forms/store.ts): lists with form filters watch it. */
  recentConversion: 'recent_conversion_date',
  // Sessions and where they came from (services/sessions.ts, domain/attribution.ts).
  visits: 'svc_analytics_num_visits',
  averagePageViews: 'svc_analytics_average_page_views',
  firstSession: 'svc_analytics_first_session_timestamp',
  lastSession: 'svc_analytics_last_session_timestamp',
  source: 'svc_analytics_source',
  sourceData1: 'svc_analytics_source_data_1',
  sourceData2: 'svc_analytics_source_data_2',
  latestSource: 'svc_analytics_latest_source',
  latestSourceData1: 'svc_analytics_latest_source_data_1',
  latestSourceData2: 'svc_analytics_latest_source_data_2',
  firstReferrer: 'svc_analytics_first_referrer',
  lastReferrer: 'svc_analytics_last_referrer',
} as const;

/** Source types as the modelled platform labels them. */
const SOURCE_LABELS: Record<(typeof SOURCE_TYPES)[number], string> = {
  ORGANIC_SEARCH: 'Organic Search',
  PAID_SEARCH: 'Paid Search',
  EMAIL_MARKETING: 'Email Marketing',
  SOCIAL_MEDIA: 'Organic Social',
  PAID_SOCIAL: 'Paid Social',
  REFERRALS: 'Referrals',
  OTHER_CAMPAIGNS: 'Other Campaigns',
  DIRECT_TRAFFIC: 'Direct Traffic',
  OFFLINE: 'Offline Sources',
};

const base = {
  description: '',
  options: [],
  hidden: false,
  deleted: false,
  formField: false,
  readOnlyValue: false,
  readOnlyDefinition: true,
  mutableDefinitionNotDeletable: true,
  calculated: false,
  externalOptions: false,
  displayMode: 'current_value',
  svcDefined: true,
  createdAt: null,
  updatedAt: null,
};

let order = 0;
const p = (
  name: string,
  label: string,
  groupName: string,
  type: Property['type'],
  fieldType: string,
  extra: Partial<Property> = {},
): Property => ({
  ...base,
  name,
  label,
  groupName,
  type,
  fieldType,
  displayOrder: order++,
  ...extra,
});
const text = (name: string, label: string, group = 'contactinformation', form = true) =>
  p(name, label, group, 'string', 'text', { formField: form });
const readOnly = { readOnlyValue: true, calculated: true };
const option = (value: string, label: string, displayOrder: number) => ({
  value,
  label,
  displayOrder,
  hidden: false,
  description: null,
});

/** A source type (an enumeration of SOURCE_TYPES) and its two drill-downs. */
function sourceProperties(name: string, data1: string, data2: string, label: string): Property[] {
  return [
    p(name, label, 'analyticsinformation', 'enumeration', 'select', {
      ...readOnly,
      options: SOURCE_TYPES.map((v, i) => option(v, SOURCE_LABELS[v], i)),
    }),
    p(data1, `${label} Drill-Down 1`, 'analyticsinformation', 'string', 'text', readOnly),
    p(data2, `${label} Drill-Down 2`, 'analyticsinformation', 'string', 'text', readOnly),
  ];
}

export const DEFAULT_CONTACT_PROPERTIES: Property[] = [
  text('email', 'Email'),
  text('firstname', 'First Name'),
  text('lastname', 'Last Name'),
  text('phone', 'Phone Number'),
  text('mobilephone', 'Mobile Phone Number'),
  text('jobtitle', 'Job Title'),
  text('website', 'Website URL'),
  text('address', 'Street Address'),
  text('city', 'City'),
  text('state', 'State/Region'),
  text('zip', 'Postal Code'),
  text('country', 'Country/Region'),
  p('message', 'Message', 'contactinformation', 'string', 'textarea', { formField: true }),
  text('company', 'Company Name', 'companyinformation'),
  p('numemployees', 'Number of Employees', 'companyinformation', 'enumeration', 'select', {
    formField: true,
    options: ['1-5', '5-25', '25-50', '50-100', '100-500', '500-1000', '1000+'].map((v, i) => option(v, v, i)),
  }),
  p('lifecyclestage', 'Lifecycle Stage', 'contactinformation', 'enumeration', 'radio', {
    options: [
      ['subscriber', 'Subscriber'],
      ['lead', 'Lead'],
      ['marketingqualifiedlead', 'Marketing Qualified Lead'],
      ['salesqualifiedlead', 'Sales Qualified Lead'],
      ['opportunity', 'Opportunity'],
      ['customer', 'Customer'],
      ['evangelist', 'Evangelist'],
      ['other', 'Other'],
    ].map(([v, l], i) => option(v, l, i)),
  }),
  p('createdate', 'Create Date', 'contactinformation', 'datetime', 'date', readOnly),
  p('lastmodifieddate', 'Last Modified Date', 'contactinformation', 'datetime', 'date', readOnly),
  p('twitterhandle', 'Twitter Username', 'socialmediainformation', 'string', 'text'),
  p(ANALYTICS.pageViews, 'Number of Pageviews', 'analyticsinformation', 'number', 'number', readOnly),
  p(ANALYTICS.firstUrl, 'First Page Seen', 'analyticsinformation', 'string', 'text', readOnly),
  p(ANALYTICS.lastUrl, 'Last Page Seen', 'analyticsinformation', 'string', 'text', readOnly),
  p(ANALYTICS.firstVisit, 'Time First Seen', 'analyticsinformation', 'datetime', 'date', readOnly),
  p(ANALYTICS.lastVisit, 'Time Last Seen', 'analyticsinformation', 'datetime', 'date', readOnly),
  p(ANALYTICS.eventCompletions, 'Number of event completions', 'analyticsinformation', 'number', 'number', readOnly),
  p(ANALYTICS.revenue, 'Event Revenue', 'analyticsinformation', 'number', 'number', readOnly),
  p(ANALYTICS.visits, 'Number of Sessions', 'analyticsinformation', 'number', 'number', readOnly),
  p(ANALYTICS.averagePageViews, 'Average Pageviews', 'analyticsinformation', 'number', 'number', readOnly),
  p(ANALYTICS.firstSession, 'Time of First Session', 'analyticsinformation', 'datetime', 'date', readOnly),
  p(ANALYTICS.lastSession, 'Time of Last Session', 'analyticsinformation', 'datetime', 'date', readOnly),
  ...sourceProperties(ANALYTICS.source, ANALYTICS.sourceData1, ANALYTICS.sourceData2, 'Original Source'),
  ...sourceProperties(
    ANALYTICS.latestSource,
    ANALYTICS.latestSourceData1,
    ANALYTICS.latestSourceData2,
    'Latest Source',
  ),
  p(ANALYTICS.firstReferrer, 'First Referring Site', 'analyticsinformation', 'string', 'text', readOnly),
  p(ANALYTICS.lastReferrer, 'Last Referring Site', 'analyticsinformation', 'string', 'text', readOnly),
  p(ANALYTICS.conversions, 'Number of Form Submissions', 'conversioninformation', 'number', 'number', readOnly),
  p(ANALYTICS.recentConversion, 'Recent Conversion Date', 'conversioninformation', 'datetime', 'date', readOnly),
];

export const DEFAULT_DEAL_PROPERTIES: Property[] = [
  p('dealname', 'Deal Name', 'dealinformation', 'string', 'text'),
  p('amount', 'Amount', 'dealinformation', 'number', 'number'),
  p('closedate', 'Close Date', 'dealinformation', 'date', 'date'),
  p('dealstage', 'Deal Stage', 'dealinformation', 'enumeration', 'radio', {
    options: ['appointmentscheduled', 'qualifiedtobuy', 'closedwon', 'closedlost'].map((v, i) => option(v, v, i)),
  }),
  p('svc_analytics_source', 'Original Source Type', 'analyticsinformation', 'string', 'text', readOnly),
];
