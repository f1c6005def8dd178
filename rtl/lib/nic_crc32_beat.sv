`default_nettype none
// nic_crc32_beat: what one full beat adds to a reflected CRC-32 register (the ICRC's),
// combinational. Folding a beat of Bytes bytes into the register c gives
//   crc32_adv(c, Bytes) ^ d_o
// (the ICRC's linear algebra, nic_roce_pkg "the CRC's linear algebra"): d_o is the register after
// the beat from a zero register, one constant XOR matrix of the beat's bits. So its depth is
// that of one XOR tree (about half the beat's bits per output bit), whatever the data. Lane 0
// (bits [7:0]) is the earliest byte; a byte that must not count is given as zero by the caller
// and an absent one at the beat's end as zero too (then the register is Bytes - n steps too far
// on: crc32_adv(.., -(Bytes - n)) undoes it).
module nic_crc32_beat #(
  parameter int Bytes = 8   // lanes per beat: DataWidth / 8, a multiple of 4
) (
  input  logic [8*Bytes-1:0] data_i,
  output logic [31:0]        d_o
);

  localparam int DataBits = 8 * Bytes;

  if (Bytes % 4 != 0) begin : gen_bad_bytes
    $fatal(1, "nic_crc32_beat: Bytes must be a multiple of 4");
  end

  // Row i (bits [DataBits*i +: DataBits]): the data bits XORed into bit i of d_o. The beat's
  // 32-bit word w (bytes 4w .. 4w+3, least significant first) is, as 32 bits XORed into the
  // register, the same as its four bytes in order: it then goes through Bytes - 4w zero bytes.
  function automatic logic [32*DataBits-1:0] beat_rows(input int nbytes);
    logic [31:0] c;
    beat_rows = '0;
    for (int k = 0; k < 32; k++) begin
      c = 32'd1 << k;
      for (int w = nbytes / 4 - 1; w >= 0; w--) begin
        c = nic_roce_pkg::crc32_adv(c, 4);
        for (int i = 0; i < 32; i++) begin
          beat_rows[DataBits*i + 32*w + k] = c[i];
        end
      end
    end
  endfunction

  localparam logic [32*DataBits-1:0] Rows = beat_rows(Bytes);

  always_comb begin
    for (int i = 0; i < 32; i++) begin
      d_o[i] = ^(data_i & Rows[DataBits*i +: DataBits]);
    end
  end

endmodule
