package dev.zaro.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One partition: its selection of the array(s), as canonical selection text (a few dozen bytes);
 * the executor reopens the store from the scan's options.
 *
 * @param index the partition's position in the plan (C order)
 * @param selection {@code dev.zaro.arrow.plan.Selection#canonical()} of the piece
 */
record ZarrPartition(int index, String selection) implements InputPartition {}
