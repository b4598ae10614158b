/**
 * Type-level mapping from an `as const` ABI to an ethers v6 contract type, so `connect()` returns contracts whose
 * methods, arguments and return values are checked by the compiler (no TypeChain step needed).
 *
 * Mapping: `uint*`/`int*` -> `bigint` (arguments: `BigNumberish`), `address` -> `string` (arguments: `AddressLike`),
 * `bool` -> `boolean`, `bytes*` -> hex `string` (arguments: `BytesLike`), `string` -> `string`, `T[]` -> arrays,
 * tuples (structs) -> objects keyed by component name (ethers returns a `Result`, which has those keys).
 * Functions with several outputs return a tuple that also has the named keys.
 */
import type {
  AddressLike,
  BaseContract,
  BaseContractMethod,
  BigNumberish,
  BytesLike,
  ContractTransactionResponse
} from 'ethers'

/** One ABI parameter, as solc emits it. */
export interface AbiParameter {
  readonly type: string
  readonly name?: string
  readonly internalType?: string
  readonly components?: readonly AbiParameter[]
}

/** One ABI function entry. */
export interface AbiFunction {
  readonly type: 'function'
  readonly name: string
  readonly inputs: readonly AbiParameter[]
  readonly outputs: readonly AbiParameter[]
  readonly stateMutability: 'pure' | 'view' | 'nonpayable' | 'payable'
}

type Mode = 'in' | 'out'

type Primitive<T extends string, M extends Mode> =
  T extends `uint${string}` | `int${string}` ? (M extends 'in' ? BigNumberish : bigint)
    : T extends 'address' ? (M extends 'in' ? AddressLike : string)
      : T extends 'bool' ? boolean
        : T extends 'string' ? string
          : T extends `bytes${string}` ? (M extends 'in' ? BytesLike : string)
            : unknown

type Struct<C extends readonly AbiParameter[], M extends Mode> = {
  [P in C[number] as P['name'] extends string ? P['name'] : never]: ValueOf<P['type'], P['components'], M>
}

type ValueOf<T extends string, C, M extends Mode> =
  T extends `${infer E}[]` ? Array<ValueOf<E, C, M>>
    : T extends `${infer E}[${string}]` ? Array<ValueOf<E, C, M>>
      : T extends 'tuple' ? (C extends readonly AbiParameter[] ? Struct<C, M> : unknown)
        : Primitive<T, M>

/** The TypeScript value of an ABI parameter, as an argument (`'in'`) or as a result (`'out'`). */
export type AbiValue<P extends AbiParameter, M extends Mode> = ValueOf<P['type'], P['components'], M>

/** The argument tuple of an ABI function. */
export type AbiArgs<I extends readonly AbiParameter[]> = { -readonly [K in keyof I]: I[K] extends AbiParameter ? AbiValue<I[K], 'in'> : never }

/** The return value of an ABI function: nothing, one value, or a tuple with named keys. */
export type AbiResult<O extends readonly AbiParameter[]> =
  O['length'] extends 0 ? void
    : O['length'] extends 1 ? AbiValue<O[0], 'out'>
      : { -readonly [K in keyof O]: O[K] extends AbiParameter ? AbiValue<O[K], 'out'> : never } & Struct<O, 'out'>

type MethodOf<F extends AbiFunction> = BaseContractMethod<
  AbiArgs<F['inputs']>,
  AbiResult<F['outputs']>,
  F['stateMutability'] extends 'view' | 'pure' ? AbiResult<F['outputs']> : ContractTransactionResponse
>

/** An ethers `BaseContract` with one typed method per function of `TAbi`. */
export type TypedContract<TAbi extends readonly unknown[]> = BaseContract & {
  [F in Extract<TAbi[number], AbiFunction> as F['name']]: MethodOf<F>
}
