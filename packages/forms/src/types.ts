/** Public types of the form embed: the definition it renders, its options and callbacks. */

/** One choice of a select, radio or checkbox field. */
export interface FormOption {
  label: string;
  value: string;
  displayOrder?: number;
  /** Not offered to visitors. */
  hidden?: boolean;
}

/** A condition on the parent field's value that shows a dependent field. */
export interface DependentFilter {
  /** `EQ`, `NEQ`, `CONTAINS`, `IS_NOT_EMPTY`, `SET_ANY` (any of `strValues`); anything else never matches. */
  operator: string;
  strValue?: string;
  strValues?: string[];
  numberValue?: number;
  boolValue?: boolean;
}

/** A field, in the anchor's legacy v2 definition format. */
export interface FormField {
  /** The contact property the value is written to. */
  name: string;
  label?: string;
  /** Property type: `string`, `enumeration`, `bool`, `number`, `date`, ... */
  type?: string;
  /** `text`, `email`, `textarea`, `number`, `date`, `select`, `radio`, `checkbox`, `booleancheckbox`, `hidden`. */
  fieldType?: string;
  /** Help text shown under the label. */
  description?: string;
  displayOrder?: number;
  required?: boolean;
  /** Submitted but not shown (`<input type=hidden>`). */
  hidden?: boolean;
  /** `false` leaves the field out of the form. */
  enabled?: boolean;
  defaultValue?: string;
  /** Pre-selected option values (select, radio, checkbox; `['true']` checks a boolean checkbox). */
  selectedOptions?: string[];
  placeholder?: string;
  /** The empty first entry of a select. */
  unselectedLabel?: string;
  /** Label kept for screen readers but not shown. */
  labelHidden?: boolean;
  options?: FormOption[];
  validation?: {
    name?: string;
    message?: string;
    /** Email domains this field refuses, e.g. `['example.org']`. */
    blockedEmailAddresses?: string[];
    /** Also refuse common free-mail domains. */
    useDefaultBlockList?: boolean;
  };
  /** Filled with the known visitor's value (asked of the companion's `/forms/:guid/visitor`). */
  prefill?: boolean;
  /** Progressive profiling (decided by the companion, which does not pass this on): once the
   * contact has a value for it, the next unanswered of the form's `queuedFields` is asked instead. */
  isSmartField?: boolean;
  /** The value from this query parameter of the page, or of an earlier page of the session. */
  queryParam?: string;
  /** The value from this cookie (when the query parameter gives none). */
  cookieName?: string;
  /** Fields shown only while this field's value passes every filter of a rule. */
  dependentFieldFilters?: { filters: DependentFilter[]; dependentFormField: FormField; formFieldAction?: string }[];
}

export interface FormFieldGroup {
  fields: FormField[];
  /** HTML shown before the group's fields; it passes the allow-list sanitiser. */
  richText?: { content?: string };
}

/** What `GET {companion}/forms/:guid` serves: the public part of a form definition. */
export interface FormDefinition {
  portalId?: number;
  guid: string;
  name?: string;
  submitText?: string;
  /** Where visitors go after submitting (http/https only). */
  redirect?: string;
  /** Thank-you message (HTML, sanitised) shown when there is no redirect. */
  inlineMessage?: string;
  cssClass?: string;
  /** Used when `formFieldGroups` is empty. */
  fields?: FormField[];
  formFieldGroups?: FormFieldGroup[];
  /** Progressive profiling: questions a known contact is asked in place of answered smart fields. */
  queuedFields?: FormField[];
  legalConsentOptions?: LegalConsentOptions;
  /** One step at a time: each step takes the next `groups` groups (the last one the rest). */
  steps?: { title?: string; groups: number }[];
}

/** Consent the form asks for; the texts are rich text (sanitised), the labels plain text. */
export interface LegalConsentOptions {
  /** Shown before the consent-to-process checkbox (or alone: consent by submitting). */
  consentToProcessText?: string;
  /** When set, a required checkbox: no consent, no submission. */
  consentToProcessCheckboxLabel?: string;
  /** Shown before the subscription checkboxes. */
  communicationConsentText?: string;
  communicationsCheckboxes?: { subscriptionTypeId: number; label: string; required?: boolean }[];
  /** Shown after the consent checkboxes. */
  privacyText?: string;
}

/** What the companion's `GET /forms/:guid/visitor` answers for a known visitor. */
export interface KnownVisitor {
  /** Pre-fill values by field name. */
  values?: Record<string, string>;
  /** Smart field name → the queued question asked in its place. */
  replace?: Record<string, string>;
}

/** A submitted value; multiple choices are joined with `;`. */
export interface SubmissionValue {
  name: string;
  value: string;
}

/** Texts shown to visitors; `translations` override them per locale. */
export interface Messages {
  required: string;
  invalidEmail: string;
  /** `{domain}` is replaced by the refused domain. */
  blockedEmail: string;
  invalidNumber: string;
  invalidDate: string;
  /** First entry of a select without `unselectedLabel`. */
  select: string;
  submitText: string;
  /** Default thank-you message. */
  thanks: string;
  /** Network failures and 5xx: the answers are kept. */
  failed: string;
  /** 400: the platform refused a value. */
  invalid: string;
  /** 404: the form does not exist (any more). */
  notFound: string;
  /** The definition could not be loaded. */
  loadFailed: string;
  /** The submit button of a step that is not the last. */
  next: string;
  back: string;
  /** Labels by field name. */
  fieldLabels: Record<string, string>;
}

/** Argument of `onBeforeFormInit`. */
export interface FormInitContext {
  portalId: string;
  formId: string;
  formInstanceId: string;
  target: HTMLElement;
}

/** Argument of `onFormSubmitted`. */
export interface SubmittedData {
  /** Where the visitor is being sent, if anywhere. */
  redirectUrl?: string;
  submissionValues: SubmissionValue[];
}

/** Argument of `onFormSubmitError`. */
export interface SubmitError {
  /** HTTP status, 0 for a network failure. */
  status: number;
  message: string;
}

/** Callbacks; each also fires as a DOM `CustomEvent` `svc-forms:<name>` on the target and as a
 * `postMessage` `{type: 'svcFormCallback', eventName, id, instanceId, data}`. */
export interface FormCallbacks {
  onBeforeFormInit?(context: FormInitContext): void;
  onFormDefinitionFetchError?(error: Error): void;
  onFormReady?(form: HTMLFormElement): void;
  /** After validation, before sending; the array may be changed in place. */
  onBeforeFormSubmit?(form: HTMLFormElement, values: SubmissionValue[]): void;
  /** Right before the request goes out. */
  onFormSubmit?(form: HTMLFormElement, values: SubmissionValue[]): void;
  onFormSubmitted?(form: HTMLFormElement, data: SubmittedData): void;
  /** The platform refused the submission or could not be reached; the answers are kept. */
  onFormSubmitError?(form: HTMLFormElement, error: SubmitError): void;
}

export type EventName = keyof FormCallbacks;

/** Options shared by `create` and `capture`. */
export interface SubmitOptions extends FormCallbacks {
  portalId: string | number;
  /** The form's guid. */
  formId: string;
  /** `{forms_url}` of the platform; default the script tag's `data-forms-url`. */
  formsUrl?: string;
  /** Sent in the context; the platform answers 302 to it (http/https only). */
  redirectUrl?: string;
  /** Tells two embeds of the same form apart (element ids, events). */
  formInstanceId?: string;
}

export interface CreateOptions extends SubmitOptions {
  /** Container (CSS selector or element); default a new element at the end of `<body>`. */
  target?: string | HTMLElement;
  /** Base URL of the companion; the definition comes from `{companion}/forms/{formId}`.
   * Default the folder `forms.js` was loaded from (the companion serves both). */
  companion?: string;
  /** Full URL of the definition, instead of the companion's. */
  definitionUrl?: string;
  /** The definition itself: nothing is fetched. */
  definition?: FormDefinition;
  /** Thank-you message (HTML, sanitised), instead of the form's. */
  inlineMessage?: string;
  submitText?: string;
  locale?: string;
  translations?: Record<string, Partial<Messages>>;
  /** Added to the `<form>`'s classes. */
  cssClass?: string;
  /** Default `svc-button primary`. */
  submitButtonClass?: string;
  /** Classes of an invalid input; default `invalid error`. */
  errorClass?: string;
  /** Classes of an error message; default `svc-error-msg`. */
  errorMessageClass?: string;
  /** Email domains refused by every email field. */
  manuallyBlockedEmailDomain?: string[];
  /** The stylesheet added once per page (replaces the built-in one); `''` adds none. */
  css?: string;
  /** Nonce of that `<style>` for a strict CSP; default the nonce of the `forms.js` script tag. */
  nonce?: string;
}

export interface SvcForms {
  /** Renders the form into the target; resolves with the `<form>` (undefined when loading failed). */
  create(options: CreateOptions): Promise<HTMLFormElement | undefined>;
  /** Sends an existing form's submissions to the platform too. Returns a function that stops it. */
  capture(form: HTMLFormElement, options: SubmitOptions): () => void;
}

declare global {
  /** `window.svc`, shared with the tracker (which declares `Window.svc` as `SvcGlobal`). */
  interface SvcGlobal {
    forms?: SvcForms;
  }
  interface Window {
    svc?: SvcGlobal & Record<string, unknown>;
  }
}
