/** `svc.forms.capture(form, {portalId, formId})`: an existing form on the page also submits its
 * values to the platform, with the same context as an embedded form. The page's own handling is
 * left alone — nothing is prevented — and the request uses `keepalive`, so it completes even when
 * the form's native submission navigates away. */
import { emitter } from './events';
import { withDefaults } from './script';
import { send } from './submit';
import type { SubmitOptions } from './types';
import { formValues } from './values';

export function capture(form: HTMLFormElement, options: SubmitOptions): () => void {
  const o = withDefaults(options, 'capture');
  const fire = emitter(o, o.formId, o.formInstanceId || 'capture', () => form);
  const onSubmit = async () => {
    const values = formValues(form);
    fire('onBeforeFormSubmit', [form, values], values);
    fire('onFormSubmit', [form, values], values);
    const { ok, status } = await send(o, values, true);
    if (ok)
      fire('onFormSubmitted', [form, { submissionValues: values }], { formGuid: o.formId, submissionValues: values });
    else fire('onFormSubmitError', [form, { status, message: `HTTP ${status}` }], { status });
  };
  // An async listener: the browser ignores what it returns; a `void` wrapper would cost the bundle bytes.
  // eslint-disable-next-line @typescript-eslint/no-misused-promises
  form.addEventListener('submit', onSubmit);
  // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the same listener
  return () => form.removeEventListener('submit', onSubmit);
}
