import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.read.Slab;
import dev.zaro.arrow.vector.SlabVectors;
import dev.zaro.arrow.vector.TableReader;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;

public class Example {
  public static void main(String[] args) throws Exception {
    try (BufferAllocator alloc = new RootAllocator();
         Zaro zaro = Zaro.open("testdata/sample/climate.zarr")) {
      System.out.println(zaro.list());                         // nodes: path, metadata
      ArrayMetadata meta = zaro.meta("t2m");                   // one model for v2 and v3
      try (Slab slab = zaro.read("t2m", "0:24, :, :", alloc);   // the caller closes the slab
           FieldVector tensor = SlabVectors.tensor(slab)) {    // shares the slab's buffer
        System.out.println(meta.dataType() + " " + tensor.getValueCount() + " rows");
        double sum = 0;                                        // float32, C order, little endian
        for (long i = 0; i < slab.elementCount(); i++) sum += slab.data().getFloat(i * 4);
        System.out.printf("shape %s mean %.4f%n", Arrays.toString(slab.shape()), sum / slab.elementCount());
      }
      try (TableReader rows = zaro.readTable("t2m", "0:2, :, :", alloc)) {   // the table layout
        while (rows.loadNextBatch()) {
          System.out.println(rows.getVectorSchemaRoot().getRowCount() + " rows");
        }
      }
    }
  }
}
