// @vitest-environment jsdom
// @vitest-environment-options { "url": "https://www.example.com/contact" }
/** `<SvcForm>` through the built package: the embed's definition comes from a fake companion and
 * its submissions go to a fake `{forms_url}`, both answered when the test says so. */
import { SvcForm, type SvcFormProps } from '@svc/react';
import { act, cleanup, render, waitFor } from '@testing-library/react';
import { createElement as h, StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const definition = (guid: string) => ({
  guid,
  submitText: 'Send',
  fields: [{ name: 'email', label: 'Email', required: true }],
});

/** Each request the embed made, with a function that answers it. */
let requests: { url: string; method: string; answer: (res: Response) => void }[];
/** Lets the embed's promise chains and timers of 0 run. */
const settle = () => new Promise((resolve) => setTimeout(resolve));
/** Answers the request to `url`, and lets the embed act on the answer. */
const answer = (url: string, res: Response) => {
  requests.find((r) => r.url == url)!.answer(res);
  return settle();
};
/** Answer definitions at once (default) or leave them waiting. */
let holdDefinitions = false;

beforeEach(() => {
  requests = [];
  holdDefinitions = false;
  globalThis.fetch = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : input.toString();
    return new Promise<Response>((answer) => {
      requests.push({ url, method: init?.method || 'GET', answer });
      const guid = /\/svc\/forms\/([^/]+)$/.exec(url)?.[1];
      if (guid && !holdDefinitions) answer(Response.json(definition(guid)));
    });
  });
});
afterEach(cleanup);

const base: SvcFormProps = { portalId: 62515, formId: 'f-1', formsUrl: 'https://forms.example.net', companion: '/svc' };
const submit = (form: HTMLFormElement, email: string) => {
  form.querySelector('input')!.value = email;
  form.requestSubmit();
};
const SUBMIT_URL = 'https://forms.example.net/uploads/form/v2/62515/f-1';

describe('<SvcForm>', () => {
  it('renders one form under StrictMode, in its own element, and unmount leaves nothing', async () => {
    const onBeforeInit = vi.fn();
    const onReady = vi.fn();
    const { container, unmount } = render(
      h(StrictMode, null, h(SvcForm, { ...base, className: 'signup', onBeforeInit, onReady })),
    );
    await waitFor(() => expect(onReady).toHaveBeenCalled());
    expect(document.querySelectorAll('form')).toHaveLength(1);
    expect(container.querySelector('div.signup > div > form')).toBe(onReady.mock.calls[0][0]);
    expect(onBeforeInit).toHaveBeenCalledTimes(1);
    expect(onReady).toHaveBeenCalledTimes(1);
    // StrictMode's first mount was undone before the embed's module arrived: one definition asked for.
    expect(requests.map((r) => r.url)).toEqual(['/svc/forms/f-1']);

    unmount();
    expect(container.innerHTML).toBe('');
    expect(document.querySelectorAll('form, .svc-form-status')).toHaveLength(0);
  });

  it('calls the latest callbacks without making the form again', async () => {
    const onReady = vi.fn();
    const first = vi.fn();
    const { rerender } = render(h(SvcForm, { ...base, onReady, onSubmitted: first }));
    await waitFor(() => expect(onReady).toHaveBeenCalled());
    const form = onReady.mock.calls[0][0] as HTMLFormElement;

    const second = vi.fn();
    const onSubmit = vi.fn();
    // New functions on every render, as inline arrow props are; other options do not re-make it either.
    rerender(h(SvcForm, { ...base, onReady, onSubmitted: second, onSubmit, submitText: 'Go' }));
    expect(document.querySelector('form')).toBe(form);
    submit(form, 'ada@example.com');
    expect(onSubmit).toHaveBeenCalledWith(form, [{ name: 'email', value: 'ada@example.com' }]);
    await act(() => answer(SUBMIT_URL, new Response(null, { status: 204 })));
    await waitFor(() => expect(second).toHaveBeenCalled());
    expect(second).toHaveBeenCalledWith(form, {
      redirectUrl: undefined,
      submissionValues: [{ name: 'email', value: 'ada@example.com' }],
    });
    expect(first).not.toHaveBeenCalled();
    expect(onReady).toHaveBeenCalledTimes(1);
  });

  it('makes a new form for a new formId, leaving one in the page even when the old definition comes last', async () => {
    holdDefinitions = true;
    const onReady = vi.fn();
    const { rerender } = render(h(SvcForm, { ...base, onReady }));
    await waitFor(() => expect(requests).toHaveLength(1));
    rerender(h(SvcForm, { ...base, formId: 'f-2', onReady }));
    await waitFor(() => expect(requests).toHaveLength(2));
    await act(() => answer('/svc/forms/f-2', Response.json(definition('f-2'))));
    await waitFor(() => expect(onReady).toHaveBeenCalledTimes(1));
    await act(() => answer('/svc/forms/f-1', Response.json(definition('f-1'))));
    expect(onReady).toHaveBeenCalledTimes(1);
    expect(document.querySelectorAll('form')).toHaveLength(1);
    expect(document.querySelector('form')).toBe(onReady.mock.calls[0][0]);
    expect(document.querySelector('form')!.id).toContain('f-2');
  });

  it('does nothing after unmount: not when the definition arrives, not when a submission is answered', async () => {
    const errors = vi.spyOn(console, 'error');
    const callbacks = {
      onReady: vi.fn(),
      onDefinitionFetchError: vi.fn(),
      onSubmitted: vi.fn(),
      onSubmitError: vi.fn(),
    };
    /** The embed's own DOM events that reach the page while `during` runs. */
    const reaching = async (name: string, during: () => Promise<unknown>) => {
      const seen: Event[] = [];
      const record = (e: Event) => seen.push(e);
      document.addEventListener('svc-forms:' + name, record);
      await during();
      document.removeEventListener('svc-forms:' + name, record);
      return seen;
    };

    // Unmounted while its definition is on the way.
    holdDefinitions = true;
    const loading = render(h(SvcForm, { ...base, ...callbacks }));
    await waitFor(() => expect(requests).toHaveLength(1));
    loading.unmount();
    const arrived = () => act(() => answer('/svc/forms/f-1', Response.json(definition('f-1'))));
    expect(await reaching('onFormReady', arrived)).toEqual([]);

    // Unmounted while its submission is on the way.
    holdDefinitions = false;
    const onReady = vi.fn();
    const sending = render(h(SvcForm, { ...base, ...callbacks, onReady }));
    await waitFor(() => expect(onReady).toHaveBeenCalled());
    submit(onReady.mock.calls[0][0] as HTMLFormElement, 'grace@example.com');
    sending.unmount();
    const accepted = () => act(() => answer(SUBMIT_URL, new Response(null, { status: 204 })));
    expect(await reaching('onFormSubmitted', accepted)).toEqual([]);

    expect(callbacks.onReady).not.toHaveBeenCalled();
    expect(callbacks.onDefinitionFetchError).not.toHaveBeenCalled();
    expect(callbacks.onSubmitted).not.toHaveBeenCalled();
    expect(callbacks.onSubmitError).not.toHaveBeenCalled();
    expect(document.querySelectorAll('form, .svc-submitted-message, .svc-form-status')).toHaveLength(0);
    expect(errors).not.toHaveBeenCalled();
  });
});
