/**
 * The request form opened with the details of a request the service never executed: a note
 * longer than the form's field (possible from a one-line /withdraw) is cut to fit, since Slack
 * refuses to open a view whose initial value exceeds its max_length.
 */
import { describe, expect, it } from 'vitest';
import { requestModal } from '../../commands/withdraw/modals.js';

type Input = { block_id?: string; element?: { max_length?: number; initial_value?: string } };
const noteField = (note: string) =>
  (
    requestModal({ amount: '50', currency: 'USDT', network: 'BSC', destination: '0x2', clientEmail: 'a@b.c', note })
      .blocks as Input[]
  ).find((b) => b.block_id === 'wd_note')!.element!;

describe('the New request form prefill', () => {
  it('cuts a note longer than the field to its max_length, never inside a character', () => {
    const f = noteField('n'.repeat(1000));
    expect(f.max_length).toBe(500);
    expect(f.initial_value).toBe('n'.repeat(500));
    // An emoji is two UTF-16 units: at the 500th unit it is left out whole.
    expect(noteField(`${'é'.repeat(499)}😀${'x'.repeat(500)}`).initial_value).toBe('é'.repeat(499));
    expect(noteField(`${'é'.repeat(498)}😀${'x'.repeat(500)}`).initial_value).toBe(`${'é'.repeat(498)}😀`);
  });

  it('keeps a note that fits as it is', () => {
    expect(noteField('invoice 7').initial_value).toBe('invoice 7');
    expect(noteField('y'.repeat(500)).initial_value).toBe('y'.repeat(500));
  });
});
