/** A slice of a list: offset/limit in, items + total out. */
export interface PageRequest {
  readonly offset: number;
  readonly limit: number;
}
export interface Page<T> {
  readonly items: T[];
  readonly total: number;
}
