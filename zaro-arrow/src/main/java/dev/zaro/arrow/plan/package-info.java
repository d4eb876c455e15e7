/**
 * What a read asks for before any chunk is touched: {@link dev.zaro.arrow.plan.Selection}
 * (numpy-style slices, steps and index lists over an array's shape), {@link
 * dev.zaro.arrow.plan.ReadPlan} (a selection split along chunk boundaries of its first dimension,
 * for blocks and endpoints), and {@link dev.zaro.arrow.plan.DimensionFilter} (conditions on
 * coordinate values narrowed to index ranges, for pushdown).
 */
package dev.zaro.arrow.plan;
