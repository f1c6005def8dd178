`default_nettype none
// nic_crc32_lanes: one beat of a reflected CRC-32 (the ICRC's), combinational. The enabled lanes
// are folded into the register in lane order (lane 0 = bits [7:0] = the earliest byte); enabled
// lanes need not be contiguous, so a caller can skip bytes anywhere in the beat.
module nic_crc32_lanes #(
  parameter int Bytes = 8   // lanes per beat: DataWidth / 8
) (
  input  logic [31:0]        crc_i,
  input  logic [8*Bytes-1:0] data_i,
  input  logic [Bytes-1:0]   en_i,
  output logic [31:0]        crc_o
);

  // The loop runs only with a lane enabled: an idle port costs the simulation nothing here.
  always_comb begin
    crc_o = crc_i;
    if (en_i != '0) begin
      for (int i = 0; i < Bytes; i++) begin
        if (en_i[i]) begin
          crc_o = nic_roce_pkg::crc32_byte(crc_o, data_i[8*i +: 8]);
        end
      end
    end
  end

endmodule
