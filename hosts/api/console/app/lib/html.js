// The one way screens write markup: htm tagged templates bound to Preact's h (no build step, no JSX).
import { h } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
export { h, render, Fragment } from 'preact';
export { useState, useEffect, useMemo, useRef, useCallback, useContext, useReducer } from 'preact/hooks';
