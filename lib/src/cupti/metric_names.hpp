#pragma once
// The raw CUPTI metric names the sets and the derived values use, in one place. The FLOP counters
// are the ones Nsight Compute's roofline sections use (thread-level SASS instructions with the
// predicate on); the tensor ones are named per chip family (GH100: src_fp16 covers both
// accumulator types; GA100/AD10x/GB10x: dst_fp16 and dst_fp32 separately; GB20x splits fp8).
namespace gpubench::metric_names {

inline constexpr const char* kDuration = "gpu__time_duration.sum";  // nanoseconds
inline constexpr const char* kDramRead = "dram__bytes_read.sum";
inline constexpr const char* kDramWrite = "dram__bytes_write.sum";
inline constexpr const char* kL2Bytes = "lts__t_bytes.sum";
inline constexpr const char* kL1Bytes = "l1tex__t_bytes.sum";

inline constexpr const char* kFadd = "sm__sass_thread_inst_executed_op_fadd_pred_on.sum";
inline constexpr const char* kFmul = "sm__sass_thread_inst_executed_op_fmul_pred_on.sum";
inline constexpr const char* kFfma = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum";
inline constexpr const char* kDadd = "sm__sass_thread_inst_executed_op_dadd_pred_on.sum";
inline constexpr const char* kDmul = "sm__sass_thread_inst_executed_op_dmul_pred_on.sum";
inline constexpr const char* kDfma = "sm__sass_thread_inst_executed_op_dfma_pred_on.sum";
inline constexpr const char* kHadd = "sm__sass_thread_inst_executed_op_hadd_pred_on.sum";
inline constexpr const char* kHmul = "sm__sass_thread_inst_executed_op_hmul_pred_on.sum";
inline constexpr const char* kHfma = "sm__sass_thread_inst_executed_op_hfma_pred_on.sum";

inline constexpr const char* kTensorFp16 = "sm__ops_path_tensor_src_fp16.sum";               // GH100
inline constexpr const char* kTensorFp16Fp16 = "sm__ops_path_tensor_src_fp16_dst_fp16.sum";  // others
inline constexpr const char* kTensorFp16Fp32 = "sm__ops_path_tensor_src_fp16_dst_fp32.sum";  // others
inline constexpr const char* kTensorBf16 = "sm__ops_path_tensor_src_bf16_dst_fp32.sum";
inline constexpr const char* kTensorTf32 = "sm__ops_path_tensor_src_tf32_dst_fp32.sum";
inline constexpr const char* kTensorFp64 = "sm__ops_path_tensor_src_fp64.sum";
inline constexpr const char* kTensorFp8 = "sm__ops_path_tensor_src_fp8.sum";                // GH100, AD10x
inline constexpr const char* kTensorFp8Fp16 = "sm__ops_path_tensor_src_fp8_dst_fp16.sum";   // GB20x
inline constexpr const char* kTensorFp8Fp32 = "sm__ops_path_tensor_src_fp8_dst_fp32.sum";   // GB20x

inline constexpr const char* kSmThroughput = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kMemoryThroughput = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kDramThroughput = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* kOccupancy = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kL2HitRate = "lts__t_sector_hit_rate.pct";
inline constexpr const char* kL1HitRate = "l1tex__t_sector_hit_rate.pct";
inline constexpr const char* kLoadEfficiency = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct";
inline constexpr const char* kStoreEfficiency = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct";

inline constexpr const char* kGlobalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kGlobalLoadRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum";
inline constexpr const char* kGlobalStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kGlobalStoreRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";

inline constexpr const char* kInstExecuted = "sm__inst_executed.sum";
inline constexpr const char* kPipeFma = "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kPipeFp64 = "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kPipeAlu = "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kPipeTensor = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active";
inline constexpr const char* kInstTensor = "sm__inst_executed_pipe_tensor.sum";

inline constexpr const char* kWarpsPerCycle = "sm__warps_active.avg.per_cycle_active";
inline constexpr const char* kCtasLaunched = "sm__ctas_launched.sum";
inline constexpr const char* kWarpsLaunched = "sm__warps_launched.sum";
inline constexpr const char* kSmCyclesActive = "sm__cycles_active.avg";

}  // namespace gpubench::metric_names
